// The payload of the blocked codecs (onebit, int8, int4): per-block data first
// (bytes_per_block each), then the packed per-element codes (bits_per_element
// each, LSB first, the unused bits of the last byte zero).
#pragma once

#include <cstdint>

#include "compression/wire_format.hpp"

namespace dlk::codec {

struct BlockedLayout {
  uint64_t blocks;
  uint64_t block_bytes;    // offset of the element codes
  uint64_t element_bytes;  // ceil(count * bits_per_element / 8)
  uint64_t payload_size;
};

// count <= 2^48 and block_size >= 1, so nothing here overflows.
BlockedLayout blocked_layout(uint64_t count, uint32_t block_size, unsigned bytes_per_block,
                             unsigned bits_per_element);

// Block size (a multiple of 16 from 16 to 2^24), payload size, and zero padding
// bits; throws Error(DLK_CODEC_CORRUPT_MESSAGE).
BlockedLayout validate_blocked(const char *call, const wire::Header &header,
                               const uint8_t *payload, unsigned bytes_per_block,
                               unsigned bits_per_element);

}  // namespace dlk::codec
