// fp16 / bf16: a cast, round to nearest even; one u16 per element.
#include <string>

#include "compression/codec.hpp"
#include "compression/error.hpp"

namespace dlk::codec {
namespace {

uint64_t max_payload_size(const dlk_codec_params &, uint64_t count) { return 2 * count; }

template <HalfFormat F>
uint64_t encode(const EncodeJob &job) {
  job.kernels.cast_encode(job.input, job.residual, job.count, F, job.payload);
  return 2 * job.count;
}

void validate(const char *call, const wire::Header &header, const uint8_t *) {
  if (header.block_size != 0)
    throw_corrupt(call, "block size " + std::to_string(header.block_size) +
                            " for a cast, which has no blocks (must be 0)");
  if (header.payload_size != 2 * header.element_count)
    throw_corrupt(call, "payload is " + std::to_string(header.payload_size) + " bytes; " +
                            std::to_string(header.element_count) + " 16-bit elements need " +
                            std::to_string(2 * header.element_count));
}

template <HalfFormat F>
void decode(const DecodeJob &job) {
  job.kernels.cast_decode(job.payload, job.header.element_count, F, job.output, job.store);
}

}  // namespace

const Codec kFp16Codec = {max_payload_size, encode<HalfFormat::fp16>, validate,
                          decode<HalfFormat::fp16>};
const Codec kBf16Codec = {max_payload_size, encode<HalfFormat::bf16>, validate,
                          decode<HalfFormat::bf16>};

}  // namespace dlk::codec
