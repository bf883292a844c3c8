// Helpers for the compression tests: inputs, encode/decode through the public
// C++ API, the ISA tiers this CPU has, and re-sealing a crafted header.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "compression/crc32c.hpp"
#include "compression/wire_format.hpp"
#include "dlk/dlk_compress.hpp"

namespace codec_test {

constexpr dlk_codec_algorithm kAlgorithms[] = {DLK_CODEC_ONEBIT, DLK_CODEC_TOPK, DLK_CODEC_INT8,
                                               DLK_CODEC_INT4,   DLK_CODEC_FP16, DLK_CODEC_BF16};

// Normal(0, scale) values from a fixed seed.
inline std::vector<float> gaussian(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (auto &x : v) x = dist(gen);
  return v;
}

inline std::vector<float> decode(const std::vector<uint8_t> &message, size_t n) {
  std::vector<float> out(n, -12345.0f);
  dlk::compress::decode(message, out.data(), n);
  return out;
}

// The ISA tiers this CPU can run, best first.
inline std::vector<std::string> available_isas() {
  std::vector<std::string> isas;
  for (const char *isa : {"avx512", "avx2", "scalar"})
    if (dlk_compress_set_isa(isa) == DLK_CODEC_SUCCESS) isas.push_back(isa);
  dlk::compress::set_isa(nullptr);
  return isas;
}

// Restores the default tier when a test leaves.
struct IsaGuard {
  explicit IsaGuard(const std::string &isa) { dlk::compress::set_isa(isa.c_str()); }
  ~IsaGuard() { dlk_compress_set_isa(nullptr); }
};

template <class T>
inline void put(std::vector<uint8_t> &message, size_t offset, T value) {
  std::memcpy(message.data() + offset, &value, sizeof value);
}

template <class T>
inline T get(const std::vector<uint8_t> &message, size_t offset) {
  T value;
  std::memcpy(&value, message.data() + offset, sizeof value);
  return value;
}

// Recomputes the header checksum after a test changed header fields, so that
// the decoder's later checks are reached.
inline void reseal(std::vector<uint8_t> &message) {
  namespace wire = dlk::codec::wire;
  put<uint32_t>(message, wire::kOffsetChecksum,
                dlk::codec::crc32c(message.data(), wire::kOffsetChecksum));
}

}  // namespace codec_test
