// One codec per algorithm: the payload layout, encode, validation and decode of
// the bytes after the header. codec_for() is the table (codec_table.cpp).
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

struct Codec {
  // The most bytes encode writes after the header (params validated for count).
  uint64_t (*max_payload_size)(const dlk_codec_params &params, uint64_t count);
  // Encodes, and returns the payload bytes written.
  uint64_t (*encode)(const EncodeJob &job);
  // Checks the payload size, the block size and every structural field of the
  // payload against the header; throws Error(DLK_CODEC_CORRUPT_MESSAGE).
  void (*validate)(const char *call, const wire::Header &header, const uint8_t *payload);
  // Runs only on a validated message.
  void (*decode)(const DecodeJob &job);
};

const Codec &codec_for(dlk_codec_algorithm algorithm);

extern const Codec kOnebitCodec, kTopkCodec, kInt8Codec, kInt4Codec, kFp16Codec, kBf16Codec;

}  // namespace dlk::codec
