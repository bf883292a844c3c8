// One codec per algorithm: encode, validation and decode of the bytes after the
// header. codec_for() is the table (codec_table.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "compression/kernels/kernel_table.hpp"
#include "compression/wire_format.hpp"
#include "dlk/dlk_compress.h"

namespace dlk::codec {

struct EncodeJob {
  const dlk_codec_params &params;  // validated for count
  const float *input;
  float *residual;  // nullptr: no error feedback
  size_t count;
  uint8_t *payload;  // room for max_payload_size bytes
  const KernelTable &kernels;
};

struct DecodeJob {
  const wire::Header &header;  // validated by the codec
  const uint8_t *payload;      // header.payload_size bytes
  float *output;               // header.element_count floats
  Store store;
  const KernelTable &kernels;
};

// Payload sizes and the header's rules are message_shape.hpp's, shared with the
// device codecs; a codec adds what only its payload's content can break.
struct Codec {
  // Encodes, and returns the payload bytes written.
  uint64_t (*encode)(const EncodeJob &job);
  // Checks the structural fields of a payload whose shape validate_shape has
  // passed; throws Error(DLK_CODEC_CORRUPT_MESSAGE). nullptr: nothing to check.
  void (*validate_payload)(const char *call, const wire::Header &header, const uint8_t *payload);
  // Runs only on a validated message.
  void (*decode)(const DecodeJob &job);
};

const Codec &codec_for(dlk_codec_algorithm algorithm);

extern const Codec kOnebitCodec, kTopkCodec, kInt8Codec, kInt4Codec, kFp16Codec, kBf16Codec;

}  // namespace dlk::codec
