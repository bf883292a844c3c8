// The integer rules of dlk.h shared by the GEMM and convolution references,
// written from the header's text rather than taken from core.
#pragma once

#include <cmath>
#include <cstdint>

#include "dlk/dlk.h"

namespace dlk::conformance {

// The s32 accumulator: the exact sum wrapped modulo 2^32.
inline int32_t wrap_to_s32(int64_t sum) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum)));
}

// Round half to even, add the zero point, saturate to the range of `dtype` (s8
// or u8); NaN gives the zero point.
inline double requantize(double v, int32_t zero_point, dlk_dtype dtype) {
  if (std::isnan(v)) return zero_point;
  const double lo = dtype == DLK_DTYPE_U8 ? 0 : -128, hi = dtype == DLK_DTYPE_U8 ? 255 : 127;
  return std::fmin(hi, std::fmax(lo, std::nearbyint(v) + zero_point));
}

}  // namespace dlk::conformance
