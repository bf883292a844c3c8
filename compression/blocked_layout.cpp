#include "compression/blocked_layout.hpp"

#include <string>

#include "compression/error.hpp"

namespace dlk::codec {

BlockedLayout blocked_layout(uint64_t count, uint32_t block_size, unsigned bytes_per_block,
                             unsigned bits_per_element) {
  BlockedLayout l;
  l.blocks = (count + block_size - 1) / block_size;
  l.block_bytes = l.blocks * bytes_per_block;
  l.element_bytes = (count * bits_per_element + 7) / 8;
  l.payload_size = l.block_bytes + l.element_bytes;
  return l;
}

BlockedLayout validate_blocked(const char *call, const wire::Header &header,
                               const uint8_t *payload, unsigned bytes_per_block,
                               unsigned bits_per_element) {
  const uint32_t b = header.block_size;
  if (b == 0 || b % DLK_CODEC_BLOCK_ALIGNMENT != 0 || b > DLK_CODEC_MAX_BLOCK_SIZE)
    throw_corrupt(call, "block size " + std::to_string(b) +
                            " is not a multiple of 16 from 16 to 2^24");
  const BlockedLayout l = blocked_layout(header.element_count, b, bytes_per_block,
                                         bits_per_element);
  if (header.payload_size != l.payload_size)
    throw_corrupt(call, "payload is " + std::to_string(header.payload_size) + " bytes; " +
                            std::to_string(header.element_count) + " elements in blocks of " +
                            std::to_string(b) + " need " + std::to_string(l.payload_size));
  const unsigned used_bits = static_cast<unsigned>((header.element_count * bits_per_element) % 8);
  if (used_bits != 0) {
    const uint8_t last = payload[l.payload_size - 1];
    if (last >> used_bits)
      throw_corrupt(call, "padding bits after the last element are not zero");
  }
  return l;
}

}  // namespace dlk::codec
