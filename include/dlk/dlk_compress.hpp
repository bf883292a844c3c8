// libdlk_compress C++17 wrapper: header-only, over the C ABI of dlk_compress.h.
// Failures throw dlk::compress::Error carrying the status and
// dlk_compress_last_error()'s message.
//
//   auto params = dlk::compress::params(DLK_CODEC_ONEBIT);
//   std::vector<uint8_t> message = dlk::compress::encode(params, grad, residual, n);
//   dlk::compress::decode_add(message, sum, n);
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "dlk/dlk_compress.h"

namespace dlk::compress {

class Error : public std::runtime_error {
 public:
  Error(dlk_codec_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  dlk_codec_status status() const noexcept { return status_; }

 private:
  dlk_codec_status status_;
};

inline void check(dlk_codec_status status) {
  if (status != DLK_CODEC_SUCCESS) throw Error(status, dlk_compress_last_error());
}

// dlk_codec_params with the defaults of `algorithm` filled in.
inline dlk_codec_params params(dlk_codec_algorithm algorithm) {
  dlk_codec_params p;
  check(dlk_compress_params_init(&p, algorithm));
  return p;
}

inline size_t max_message_size(const dlk_codec_params &p, uint64_t count) {
  size_t bytes = 0;
  check(dlk_compress_max_message_size(&p, count, &bytes));
  return bytes;
}

// Encodes into message (capacity bytes); returns the bytes written. residual may
// be nullptr (no error feedback).
inline size_t encode(const dlk_codec_params &p, const float *input, float *residual,
                     uint64_t count, void *message, size_t capacity) {
  size_t size = 0;
  check(dlk_compress_encode(&p, input, residual, count, message, capacity, &size));
  return size;
}

// Encodes into a new buffer of exactly the message's size.
inline std::vector<uint8_t> encode(const dlk_codec_params &p, const float *input,
                                   float *residual, uint64_t count) {
  std::vector<uint8_t> message(max_message_size(p, count));
  message.resize(encode(p, input, residual, count, message.data(), message.size()));
  return message;
}

inline dlk_codec_message_info inspect(const void *message, size_t size) {
  dlk_codec_message_info info;
  check(dlk_compress_inspect(message, size, &info));
  return info;
}

inline void decode(const void *message, size_t size, float *output, uint64_t count) {
  check(dlk_compress_decode(message, size, output, count));
}

inline void decode(const std::vector<uint8_t> &message, float *output, uint64_t count) {
  decode(message.data(), message.size(), output, count);
}

inline void decode_add(const void *message, size_t size, float *accumulator, uint64_t count) {
  check(dlk_compress_decode_add(message, size, accumulator, count));
}

inline void decode_add(const std::vector<uint8_t> &message, float *accumulator,
                       uint64_t count) {
  decode_add(message.data(), message.size(), accumulator, count);
}

// "avx512", "avx2" or "scalar"; nullptr returns to the default.
inline void set_isa(const char *isa) { check(dlk_compress_set_isa(isa)); }

inline std::string isa() {
  const char *name = nullptr;
  check(dlk_compress_get_isa(&name));
  return name;
}

}  // namespace dlk::compress
