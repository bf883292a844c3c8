#include "compression/message_shape.hpp"

#include <string>

#include "compression/blocked_layout.hpp"
#include "compression/error.hpp"
#include "compression/params.hpp"

namespace dlk::codec {
namespace {

void validate_blocked(const char *call, const wire::Header &header,
                      const std::function<uint8_t()> &last_byte) {
  const uint32_t b = header.block_size;
  if (b == 0 || b % DLK_CODEC_BLOCK_ALIGNMENT != 0 || b > DLK_CODEC_MAX_BLOCK_SIZE)
    throw_corrupt(call, "block size " + std::to_string(b) +
                            " is not a multiple of 16 from 16 to 2^24");
  const BlockedShape s = blocked_shape(header.algorithm);
  const BlockedLayout l =
      blocked_layout(header.element_count, b, s.bytes_per_block, s.bits_per_element);
  if (header.payload_size != l.payload_size)
    throw_corrupt(call, "payload is " + std::to_string(header.payload_size) + " bytes; " +
                            std::to_string(header.element_count) + " elements in blocks of " +
                            std::to_string(b) + " need " + std::to_string(l.payload_size));
  const auto used_bits = static_cast<unsigned>((header.element_count * s.bits_per_element) % 8);
  if (used_bits != 0 && (last_byte() >> used_bits) != 0)
    throw_corrupt(call, "padding bits after the last element are not zero");
}

void validate_cast(const char *call, const wire::Header &header) {
  if (header.block_size != 0)
    throw_corrupt(call, "block size " + std::to_string(header.block_size) +
                            " for a cast, which has no blocks (must be 0)");
  if (header.payload_size != 2 * header.element_count)
    throw_corrupt(call, "payload is " + std::to_string(header.payload_size) + " bytes; " +
                            std::to_string(header.element_count) + " 16-bit elements need " +
                            std::to_string(2 * header.element_count));
}

void validate_topk(const char *call, const wire::Header &header) {
  if (header.block_size != 0)
    throw_corrupt(call, "block size " + std::to_string(header.block_size) +
                            " for topk, which has no blocks (must be 0)");
  const uint64_t n = header.element_count;
  if (n > (uint64_t(1) << 32))
    throw_corrupt(call, "element count " + std::to_string(n) + " exceeds topk's 2^32");
  if (header.payload_size % 8 != 0)
    throw_corrupt(call, "payload of " + std::to_string(header.payload_size) +
                            " bytes is not a whole number of 8-byte (index, value) pairs");
  const uint64_t pairs = header.payload_size / 8;
  if (pairs > n)
    throw_corrupt(call, std::to_string(pairs) + " pairs for " + std::to_string(n) + " elements");
}

}  // namespace

uint64_t max_payload_size(const dlk_codec_params &params, uint64_t count) {
  if (blocked_algorithm(params.algorithm)) {
    const BlockedShape s = blocked_shape(params.algorithm);
    return blocked_layout(count, params.block_size, s.bytes_per_block, s.bits_per_element)
        .payload_size;
  }
  if (params.algorithm == DLK_CODEC_TOPK) return 8 * topk_k(params, count);
  return 2 * count;  // fp16, bf16
}

void validate_shape(const char *call, const wire::Header &header,
                    const std::function<uint8_t()> &last_byte) {
  if (blocked_algorithm(header.algorithm))
    validate_blocked(call, header, last_byte);
  else if (header.algorithm == DLK_CODEC_TOPK)
    validate_topk(call, header);
  else
    validate_cast(call, header);
}

}  // namespace dlk::codec
