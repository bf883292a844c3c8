// The arithmetic that defines each codec's output, written once in scalar C++.
// The scalar tier calls these functions; the avx2 and avx512 tiers perform the
// same IEEE operations in the same order on vectors, so that every tier produces
// the same bits (tests/compression/test_isa_tiers.cpp checks it). Anything that
// depends on evaluation order (a sum) is pinned down here.
//
// Everything here has internal linkage: each tier's translation unit is compiled
// with its own -m flags, and an inline function with external linkage emitted by
// the avx512 unit could be the copy the linker keeps for the scalar tier.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cfloat>

#include "compression/byte_order.hpp"

namespace dlk::codec {
namespace {  // internal linkage, see above

// ---------------------------------------------------------------- NaN results

// On x86, where the CPU tiers run, an operation with a NaN operand returns that
// NaN made quiet (the first operand's when both are NaN), and an invalid one
// (inf - inf, 0 * inf) the default NaN 0xFFC00000. An NVIDIA GPU returns one
// canonical NaN, 0x7FFFFFFF, instead. The operations of a codec that can meet a
// NaN go through these, so that the CUDA backend's kernels (which compile this
// file for the device) write the CPU's NaN bits into scales, means, residuals and
// decoded values: on the host they are the plain operators.
DLK_CODEC_HD inline float x86_nan_result(float a, float b, float result) {
#ifdef __CUDA_ARCH__
  if (result == result) return result;
  if (a != a) return bits_float(float_bits(a) | 0x00400000u);
  if (b != b) return bits_float(float_bits(b) | 0x00400000u);
  return bits_float(0xFFC00000u);
#else
  (void)a;
  (void)b;
  return result;
#endif
}
DLK_CODEC_HD inline float add_x86(float a, float b) { return x86_nan_result(a, b, a + b); }
DLK_CODEC_HD inline float sub_x86(float a, float b) { return x86_nan_result(a, b, a - b); }
DLK_CODEC_HD inline float mul_x86(float a, float b) { return x86_nan_result(a, b, a * b); }
DLK_CODEC_HD inline float div_x86(float a, float b) { return x86_nan_result(a, b, a / b); }

// Elements are processed in groups of 16 (one AVX-512 vector, two AVX2 vectors).
constexpr size_t kGroup = 16;

DLK_CODEC_HD inline size_t block_length(size_t block_size, size_t count, size_t start) {
  return count - start < block_size ? count - start : block_size;
}

// The order every tier sums a block: lane l (element index mod 16) accumulates its
// elements in index order, starting from +0; then the 16 lane sums are added
// pairwise, halving: s[l] += s[l + 8], then + 4, + 2, + 1.
DLK_CODEC_HD inline float reduce_lanes16(float lanes[kGroup]) {
  for (size_t half = kGroup / 2; half >= 1; half /= 2)
    for (size_t l = 0; l < half; ++l) lanes[l] = add_x86(lanes[l], lanes[l + half]);
  return lanes[0];
}

// ---------------------------------------------------------------- onebit

// v where keep, else +0: a bit mask, as the vector tiers do it (and no branch on
// the sign of a gradient, which no predictor can guess).
DLK_CODEC_HD inline float keep_or_zero(bool keep, float v) {
  return bits_float(float_bits(v) & (0u - static_cast<uint32_t>(keep)));
}

// v < 0 goes to the negative group; everything else (+-0, NaN) to the positive.
//
// A group's reconstruction value is the root mean square of its values, with the
// group's sign (DeepSpeed's 1-bit scale, norm / sqrt(n), per sign group), not
// their mean (1-bit SGD's least-squares choice). Under error feedback the value
// must reach the largest |v| of the group for the time average to be exact; the
// mean gets there only by inflating every residual, which then grows without
// bound (about sqrt(calls) for a fixed gradient: 11x the gradient after 200
// calls) and LeNet-5 stopped learning; the RMS weighs the large values that the
// residual piles up, so the residual stays within about 3x the gradient and the
// average converges as 1/calls (docs/compression.md, error feedback).
//
// The vector tiers accumulate v * v in the lanes of reduce_lanes16, so the lane
// sums are bit-identical in every tier. When that sum overflows (values above
// about 1e18) or is below FLT_MIN (values below about 1e-19, or all zero), the
// squares are summed again in the same lane order of the values scaled by 2^-80
// or 2^80 (no overflow up to the largest block; only values that cannot matter
// next to the others lose bits), and the RMS scaled back. An inf or NaN in the
// group keeps the value non-finite (a NaN is returned as the lane sum made it, before any sqrt,
// so that every tier and the device give its same bits).
DLK_CODEC_HD inline float onebit_group_level(float sum_of_squares, uint32_t count, const float *x,
                                             const float *r, size_t len, bool negative_group) {
  if (count == 0) return 0.0f;
  const float n = static_cast<float>(count);
  float level;
  if (std::isfinite(sum_of_squares) && sum_of_squares >= FLT_MIN) {
    level = std::sqrt(div_x86(sum_of_squares, n));
  } else {
    const bool overflow = !std::isfinite(sum_of_squares);
    const float scale = overflow ? 0x1p-80f : 0x1p80f;
    float lanes[kGroup] = {};
    for (size_t i = 0; i < len; ++i) {
      const float v = mul_x86(r ? add_x86(x[i], r[i]) : x[i], scale);
      lanes[i % kGroup] =
          add_x86(lanes[i % kGroup], keep_or_zero((v < 0.0f) == negative_group, mul_x86(v, v)));
    }
    const float scaled = reduce_lanes16(lanes);
    if (std::isnan(scaled)) return scaled;
    level = mul_x86(std::sqrt(div_x86(scaled, n)), overflow ? 0x1p80f : 0x1p-80f);
    // Rounding may put the RMS of values near FLT_MAX just past it.
    if (std::isinf(level) && std::isfinite(scaled)) level = FLT_MAX;
  }
  return negative_group ? -level : level;
}

// The sign bits of a group of 16 elements are two bytes at element index / 8; a
// shorter last group has only the bytes its elements need.
// (The full case is separate so that it compiles to one 2-byte move.)
DLK_CODEC_HD inline void store_group_bits(uint8_t *bits, uint32_t group_bits, size_t remaining) {
  const auto word = static_cast<uint16_t>(group_bits);
  if (remaining >= kGroup)
    std::memcpy(bits, &word, 2);
  else
    std::memcpy(bits, &word, (remaining + 7) / 8);
}

DLK_CODEC_HD inline uint32_t load_group_bits(const uint8_t *bits, size_t remaining) {
  uint16_t word = 0;
  if (remaining >= kGroup)
    std::memcpy(&word, bits, 2);
  else
    std::memcpy(&word, bits, (remaining + 7) / 8);
  return word;
}

// ---------------------------------------------------------------- int8, int4

DLK_CODEC_HD constexpr float quantize_max_code(int bits) { return bits == 8 ? 127.0f : 7.0f; }

// A block's magnitude is the largest |v| by bit pattern (an integer maximum, so
// independent of order, and NaN > inf).
DLK_CODEC_HD inline uint32_t magnitude_key(float v) { return float_bits(v) & 0x7FFFFFFFu; }

struct BlockScale {
  float scale;    // decoded = code * scale
  float inverse;  // code = round(v * inverse)
};

// Blocks whose largest magnitude is 0, or so small that max_code / m overflows,
// encode as all-zero codes with scale 0 (their value stays in the residual).
// Non-finite blocks follow the rule for non-finite gradients (docs/compression.md,
// "Non-finite values"; the decode rule is in docs/wire-format.md, int8 and int4):
// they decode to non-finite values of the same sign, never to finite ones.
// - A block holding inf (and no NaN) gets scale +inf and inverse 2^-149, so that
//   +-inf quantize to +-max_code (decoded +-inf) and every finite value to code 0,
//   which dequantize decodes as 0: the finite values stay finite. Such a block is
//   rounded to nearest in either mode (rounds_stochastically): a stochastic draw
//   could round a finite value's tiny code away from 0, and 1 x inf is inf.
// - A block holding NaN gets scale NaN: every value decodes to NaN.
DLK_CODEC_HD inline BlockScale block_scale(uint32_t max_key, float max_code) {
  const float m = bits_float(max_key);
  if (std::isinf(m)) return {m, 0x1p-149f};
  const float inverse = div_x86(max_code, m);
  if (m == 0.0f || (std::isfinite(m) && !std::isfinite(inverse))) return {0.0f, 0.0f};
  return {div_x86(m, max_code), inverse};
}

// Whether a block of this scale takes stochastic rounding when the mode asks for it.
DLK_CODEC_HD inline bool rounds_stochastically(float scale) { return !std::isinf(scale); }

// code * scale, except that code 0 is +0 also when scale is inf or NaN (see
// block_scale); for finite scales (always >= +0) that is the same value.
DLK_CODEC_HD inline float dequantize(int32_t code, float scale) {
  return code == 0 ? 0.0f : mul_x86(static_cast<float>(code), scale);
}

// Clamps to [-max_code, max_code]; NaN becomes -max_code. Written as the x86
// max/min instructions behave (the second operand when either is NaN).
DLK_CODEC_HD inline float clamp_code(float y, float max_code) {
  y = y > -max_code ? y : -max_code;
  return y < max_code ? y : max_code;
}

// For a clamped code |y| <= 127: adding 1.5 * 2^23 lands in [2^23, 2^24), where
// floats are the integers, so the sum rounds y to nearest even (in the default
// rounding mode) without a library call. (A zero result may lose its sign; the
// code, an integer, does not have one.)
DLK_CODEC_HD inline float round_nearest_even(float y) { return (y + 0x1.8p23f) - 0x1.8p23f; }

// floor for a clamped code, without a library call.
DLK_CODEC_HD inline float floor_code(float y) {
  const auto toward_zero = static_cast<float>(static_cast<int32_t>(y));
  return toward_zero > y ? toward_zero - 1.0f : toward_zero;
}

// Counter-based generator for stochastic rounding: the random word of an element
// is two rounds of the lowbias32 integer hash (a bijection on 32-bit words) of
// its index, keyed by (seed, step, rank).
DLK_CODEC_HD inline uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

DLK_CODEC_HD inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

DLK_CODEC_HD inline uint64_t stochastic_key(uint64_t seed, uint64_t step, uint32_t rank) {
  return splitmix64(splitmix64(splitmix64(seed) ^ step) ^ rank);
}

DLK_CODEC_HD inline uint32_t random_word(uint64_t key, uint64_t index) {
  const uint32_t lo = static_cast<uint32_t>(index) ^ static_cast<uint32_t>(key);
  const uint32_t hi = static_cast<uint32_t>(index >> 32) ^ static_cast<uint32_t>(key >> 32);
  return mix32(mix32(lo) + hi);
}

// Uniform on [0, 1) in steps of 2^-24 (exact in f32).
DLK_CODEC_HD inline float uniform24(uint32_t word) { return static_cast<float>(word >> 8) * 0x1p-24f; }

// Rounds up with probability (y - floor(y)), to within 2^-24. y is clamped, so
// the result stays within [-max_code, max_code].
DLK_CODEC_HD inline float round_stochastic(float y, uint32_t word) {
  const float down = floor_code(y);
  return uniform24(word) < y - down ? down + 1.0f : down;
}

// ---------------------------------------------------------------- fp16, bf16

// f32 -> bf16, round to nearest even; NaN stays NaN (quiet, sign and top payload kept).
DLK_CODEC_HD inline uint16_t bf16_from_float(float f) {
  const uint32_t b = float_bits(f);
  if ((b & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((b >> 16) | 0x0040u);
  return static_cast<uint16_t>((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}

DLK_CODEC_HD inline float bf16_to_float(uint16_t h) { return bits_float(static_cast<uint32_t>(h) << 16); }

// f32 -> fp16, round to nearest even, as the F16C instruction vcvtps2ph does:
// overflow to inf, subnormals kept, NaN quiet with the top payload bits kept.
DLK_CODEC_HD inline uint16_t fp16_from_float(float f) {
  const uint32_t b = float_bits(f);
  const uint32_t sign = (b >> 16) & 0x8000u;
  const uint32_t a = b & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | ((a >> 13) & 0x3FFu));
  if (a >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520: inf
  if (a >= 0x38800000u) {                                              // normal: >= 2^-14
    const uint32_t rounded = a - (112u << 23) + 0xFFFu + ((a >> 13) & 1u);
    return static_cast<uint16_t>(sign | (rounded >> 13));
  }
  const uint32_t exponent = a >> 23;
  if (exponent < 102) return static_cast<uint16_t>(sign);  // < 2^-25: rounds to 0
  // Subnormal: count units of 2^-24, rounding the shifted-out bits to nearest even.
  const uint32_t mantissa = (a & 0x7FFFFFu) | 0x800000u;
  const uint32_t shift = 126 - exponent;
  uint32_t q = mantissa >> shift;
  const uint32_t rest = mantissa & ((1u << shift) - 1);
  const uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (q & 1u))) ++q;
  return static_cast<uint16_t>(sign | q);
}

// fp16 -> f32, exact, as vcvtph2ps does (NaN made quiet, payload kept).
DLK_CODEC_HD inline float fp16_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  const uint32_t mantissa = h & 0x3FFu;
  if (exponent == 31)
    return bits_float(sign | 0x7F800000u | (mantissa ? 0x400000u : 0u) | (mantissa << 13));
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return bits_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

}  // namespace
}  // namespace dlk::codec
