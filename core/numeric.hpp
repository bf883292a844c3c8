// Scalar conversions and rounding shared by every backend and the tests, so that
// "round half to even, then saturate" means one thing everywhere (the CUDA
// backend's kernels compile the integer rules below for the device too).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define DLK_HOST_DEVICE __host__ __device__
#else
#define DLK_HOST_DEVICE
#endif

namespace dlk::core {

// f32 -> f16 bits, round to nearest even; overflow gives infinity, NaN stays NaN.
inline uint16_t f32_to_f16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
  if (abs < 0x38800000u) {  // below the smallest normal f16: subnormal or zero
    // Adding 0.5 makes the FPU do the rounding to the subnormal grid (2^-24 steps).
    float a;
    std::memcpy(&a, &abs, 4);
    a += 0.5f;
    uint32_t bits;
    std::memcpy(&bits, &a, 4);
    return static_cast<uint16_t>(sign | (bits - 0x3f000000u));
  }
  const uint32_t odd = (abs >> 13) & 1u;
  const uint32_t rounded = abs + 0xc8000fffu + odd;  // rebias exponent 127 -> 15 and round
  return static_cast<uint16_t>(sign | (rounded >> 13));
}

inline float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t man = h & 0x3ffu;
  uint32_t x;
  if (exp == 0x1fu) {
    x = sign | 0x7f800000u | (man << 13);
  } else if (exp != 0) {
    x = sign | ((exp + 112u) << 23) | (man << 13);
  } else {
    // Subnormal or zero: value is man * 2^-24, exact in f32.
    float v = static_cast<float>(man) * 5.9604644775390625e-8f;
    std::memcpy(&x, &v, 4);
    x |= sign;
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

// f32 -> bf16 bits, round to nearest even; NaN stays a quiet NaN.
inline uint16_t f32_to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

inline float bf16_to_f32(uint16_t b) {
  const uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

// Integer accumulation wraps modulo 2^32 as the hardware does; unsigned
// arithmetic keeps that defined behaviour in C++.
DLK_HOST_DEVICE inline int32_t wrapping_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
DLK_HOST_DEVICE inline int32_t wrapping_mul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}

// Round half to even (under the default rounding mode), add the zero point, then
// clamp to [lo, hi]. NaN maps to the zero point. (v != v and nearbyintf: what both
// the host and CUDA device code have; the GPU always rounds to even.)
DLK_HOST_DEVICE inline int32_t requantize(float v, int32_t zero_point, int32_t lo, int32_t hi) {
  if (v != v) return zero_point;  // NaN
  const float r = nearbyintf(v) + static_cast<float>(zero_point);
  if (r <= static_cast<float>(lo)) return lo;
  if (r >= static_cast<float>(hi)) return hi;
  return static_cast<int32_t>(r);
}

DLK_HOST_DEVICE inline int8_t saturate_s8(float v, int32_t zero_point) {
  return static_cast<int8_t>(requantize(v, zero_point, -128, 127));
}
DLK_HOST_DEVICE inline uint8_t saturate_u8(float v, int32_t zero_point) {
  return static_cast<uint8_t>(requantize(v, zero_point, 0, 255));
}

}  // namespace dlk::core
