// The payload of the blocked codecs (onebit, int8, int4): per-block data first
// (bytes_per_block each), then the packed per-element codes (bits_per_element
// each, LSB first, the unused bits of the last byte zero).
#pragma once

#include <cstdint>

#include "dlk/dlk_compress.h"

namespace dlk::codec {

struct BlockedLayout {
  uint64_t blocks;
  uint64_t block_bytes;    // offset of the element codes
  uint64_t element_bytes;  // ceil(count * bits_per_element / 8)
  uint64_t payload_size;
};

// count <= 2^48 and block_size >= 1, so nothing here overflows. Inline: the CUDA
// backend's codecs lay their payloads out with it too.
inline BlockedLayout blocked_layout(uint64_t count, uint32_t block_size, unsigned bytes_per_block,
                                    unsigned bits_per_element) {
  BlockedLayout l;
  l.blocks = (count + block_size - 1) / block_size;
  l.block_bytes = l.blocks * bytes_per_block;
  l.element_bytes = (count * bits_per_element + 7) / 8;
  l.payload_size = l.block_bytes + l.element_bytes;
  return l;
}

// Per block `bytes_per_block` bytes (onebit: two f32 means; int8, int4: one f32
// scale), then `bits_per_element` per element.
struct BlockedShape {
  unsigned bytes_per_block;
  unsigned bits_per_element;
};

// onebit, int8, int4.
inline BlockedShape blocked_shape(dlk_codec_algorithm algorithm) {
  switch (algorithm) {
    case DLK_CODEC_ONEBIT: return {8, 1};  // positive mean, negative mean; a sign bit
    case DLK_CODEC_INT8: return {4, 8};    // scale; an s8 code
    default: return {4, 4};                // int4: scale; an s4 code
  }
}

}  // namespace dlk::codec
