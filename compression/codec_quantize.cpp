// int8 / int4: blockwise symmetric quantization. Per block one f32 scale
// (max |v| / 127 or / 7), then one code per element: s8, or s4 two per byte with
// the even element in the low nibble.
#include "compression/blocked_layout.hpp"
#include "compression/codec.hpp"
#include "compression/message_shape.hpp"
#include "compression/kernels/numerics.hpp"

namespace dlk::codec {
namespace {

template <int Bits>
unsigned block_bytes() {
  return blocked_shape(Bits == 8 ? DLK_CODEC_INT8 : DLK_CODEC_INT4).bytes_per_block;
}

template <int Bits>
uint64_t encode(const EncodeJob &job) {
  const BlockedLayout l = blocked_layout(job.count, job.params.block_size, block_bytes<Bits>(), Bits);
  const QuantizeSpec spec{
      Bits, job.params.rounding == DLK_CODEC_ROUND_STOCHASTIC,
      stochastic_key(job.params.seed, job.params.step, job.params.rank)};
  job.kernels.quantize_encode(job.input, job.residual, job.count, job.params.block_size, spec,
                              job.payload, job.payload + l.block_bytes);
  return l.payload_size;
}

template <int Bits>
void decode(const DecodeJob &job) {
  const BlockedLayout l =
      blocked_layout(job.header.element_count, job.header.block_size, block_bytes<Bits>(), Bits);
  job.kernels.quantize_decode(job.payload, job.payload + l.block_bytes, job.header.element_count,
                              job.header.block_size, Bits, job.output, job.store);
}

}  // namespace

const Codec kInt8Codec = {encode<8>, nullptr, decode<8>};
const Codec kInt4Codec = {encode<4>, nullptr, decode<4>};

}  // namespace dlk::codec
