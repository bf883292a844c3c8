// fp16 / bf16: a cast, round to nearest even; one u16 per element.
#include "compression/codec.hpp"

namespace dlk::codec {
namespace {

template <HalfFormat F>
uint64_t encode(const EncodeJob &job) {
  job.kernels.cast_encode(job.input, job.residual, job.count, F, job.payload);
  return 2 * job.count;
}

template <HalfFormat F>
void decode(const DecodeJob &job) {
  job.kernels.cast_decode(job.payload, job.header.element_count, F, job.output, job.store);
}

}  // namespace

const Codec kFp16Codec = {encode<HalfFormat::fp16>, nullptr, decode<HalfFormat::fp16>};
const Codec kBf16Codec = {encode<HalfFormat::bf16>, nullptr, decode<HalfFormat::bf16>};

}  // namespace dlk::codec
