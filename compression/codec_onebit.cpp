// onebit (Seide et al. 2014): per block, the mean of the positive and of the
// negative values (two f32), then one sign bit per element.
#include "compression/blocked_layout.hpp"
#include "compression/codec.hpp"

namespace dlk::codec {
namespace {

constexpr unsigned kBlockBytes = 8;  // positive mean, negative mean
constexpr unsigned kElementBits = 1;

uint64_t max_payload_size(const dlk_codec_params &params, uint64_t count) {
  return blocked_layout(count, params.block_size, kBlockBytes, kElementBits).payload_size;
}

uint64_t encode(const EncodeJob &job) {
  const BlockedLayout l =
      blocked_layout(job.count, job.params.block_size, kBlockBytes, kElementBits);
  job.kernels.onebit_encode(job.input, job.residual, job.count, job.params.block_size,
                            job.payload, job.payload + l.block_bytes);
  return l.payload_size;
}

void validate(const char *call, const wire::Header &header, const uint8_t *payload) {
  validate_blocked(call, header, payload, kBlockBytes, kElementBits);
}

void decode(const DecodeJob &job) {
  const BlockedLayout l = blocked_layout(job.header.element_count, job.header.block_size,
                                         kBlockBytes, kElementBits);
  job.kernels.onebit_decode(job.payload, job.payload + l.block_bytes, job.header.element_count,
                            job.header.block_size, job.output, job.store);
}

}  // namespace

const Codec kOnebitCodec = {max_payload_size, encode, validate, decode};

}  // namespace dlk::codec
