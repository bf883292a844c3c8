// onebit (Seide et al. 2014): per block, the root mean square of the positive and
// of the negative values (two f32, signed), then one sign bit per element.
#include "compression/blocked_layout.hpp"
#include "compression/codec.hpp"
#include "compression/message_shape.hpp"

namespace dlk::codec {
namespace {

const BlockedShape kShape = blocked_shape(DLK_CODEC_ONEBIT);

uint64_t encode(const EncodeJob &job) {
  const BlockedLayout l = blocked_layout(job.count, job.params.block_size,
                                         kShape.bytes_per_block, kShape.bits_per_element);
  job.kernels.onebit_encode(job.input, job.residual, job.count, job.params.block_size,
                            job.payload, job.payload + l.block_bytes);
  return l.payload_size;
}

void decode(const DecodeJob &job) {
  const BlockedLayout l = blocked_layout(job.header.element_count, job.header.block_size,
                                         kShape.bytes_per_block, kShape.bits_per_element);
  job.kernels.onebit_decode(job.payload, job.payload + l.block_bytes, job.header.element_count,
                            job.header.block_size, job.output, job.store);
}

}  // namespace

const Codec kOnebitCodec = {encode, nullptr, decode};

}  // namespace dlk::codec
