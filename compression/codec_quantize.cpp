// int8 / int4: blockwise symmetric quantization. Per block one f32 scale
// (max |v| / 127 or / 7), then one code per element: s8, or s4 two per byte with
// the even element in the low nibble.
#include "compression/blocked_layout.hpp"
#include "compression/codec.hpp"
#include "compression/kernels/numerics.hpp"

namespace dlk::codec {
namespace {

constexpr unsigned kBlockBytes = 4;  // scale

template <int Bits>
uint64_t max_payload_size(const dlk_codec_params &params, uint64_t count) {
  return blocked_layout(count, params.block_size, kBlockBytes, Bits).payload_size;
}

template <int Bits>
uint64_t encode(const EncodeJob &job) {
  const BlockedLayout l = blocked_layout(job.count, job.params.block_size, kBlockBytes, Bits);
  const QuantizeSpec spec{
      Bits, job.params.rounding == DLK_CODEC_ROUND_STOCHASTIC,
      stochastic_key(job.params.seed, job.params.step, job.params.rank)};
  job.kernels.quantize_encode(job.input, job.residual, job.count, job.params.block_size, spec,
                              job.payload, job.payload + l.block_bytes);
  return l.payload_size;
}

template <int Bits>
void validate(const char *call, const wire::Header &header, const uint8_t *payload) {
  validate_blocked(call, header, payload, kBlockBytes, Bits);
}

template <int Bits>
void decode(const DecodeJob &job) {
  const BlockedLayout l =
      blocked_layout(job.header.element_count, job.header.block_size, kBlockBytes, Bits);
  job.kernels.quantize_decode(job.payload, job.payload + l.block_bytes, job.header.element_count,
                              job.header.block_size, Bits, job.output, job.store);
}

}  // namespace

const Codec kInt8Codec = {max_payload_size<8>, encode<8>, validate<8>, decode<8>};
const Codec kInt4Codec = {max_payload_size<4>, encode<4>, validate<4>, decode<4>};

}  // namespace dlk::codec
