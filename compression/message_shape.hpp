// What a message's size and header must be, apart from the content of its
// payload: the payload size that given parameters produce, and every check of a
// received header (docs/wire-format.md, step 9) that needs at most the payload's
// last byte. The codecs (codec_*.cpp) and libdlk's device codecs
// (core/api_codec.cpp), which check a message lying in device memory from its
// header and last byte alone, share these rules.
#pragma once

#include <cstdint>
#include <functional>

#include "compression/blocked_layout.hpp"
#include "compression/wire_format.hpp"
#include "dlk/dlk_compress.h"

namespace dlk::codec {

// The most payload bytes encode writes for `count` elements (exact for every
// algorithm but sampled topk, which may write less). Params validated for count.
uint64_t max_payload_size(const dlk_codec_params &params, uint64_t count);

// Block size, payload size for the element count and block size, topk's 2^32
// elements and whole (index, value) pairs, and the zero padding bits after the
// last element of a blocked codec, which lie in the payload's last byte:
// `last_byte` is called for it, once the sizes are known to be right, and only
// when the padding has bits. Throws Error(DLK_CODEC_CORRUPT_MESSAGE). The header's
// payload size must already equal the payload's. topk's index order is its
// codec's to check (Codec::validate_payload).
void validate_shape(const char *call, const wire::Header &header,
                    const std::function<uint8_t()> &last_byte);

}  // namespace dlk::codec
