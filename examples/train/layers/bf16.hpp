// f32 <-> bf16 (round to nearest even; NaN stays NaN), the conversions a framework
// runs around bf16 kernels.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace dlk_train {

inline uint16_t to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

inline float from_bf16(uint16_t h) {
  const uint32_t u = uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline void to_bf16(const float *src, size_t n, std::vector<uint16_t> &dst) {
  dst.resize(n);
  for (size_t i = 0; i < n; ++i) dst[i] = to_bf16(src[i]);
}

inline void from_bf16(const uint16_t *src, size_t n, float *dst) {
  for (size_t i = 0; i < n; ++i) dst[i] = from_bf16(src[i]);
}

}  // namespace dlk_train
