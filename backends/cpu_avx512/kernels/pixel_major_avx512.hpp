// Planes of diff_dst turned pixel-major (a vector of up to 16 channels per
// pixel), shared by the direct backward-weights kernels whose vector lanes are
// output channels. Include only from files built with -mavx512f.
#pragma once

#include <algorithm>
#include <cstdint>

#include "backends/cpu_avx512/kernels/transpose16_avx512.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {

// Writes `pixels` elements of each of the k (<= 16) planes at dy (plane_stride
// floats apart) as one vector a pixel, `stride` floats apart at pixel_major
// (aligned; zeros past k), 16 pixels at a time through a register transpose
// (one scalar store per element took as long as the sums, LeNet-5 conv1);
// returns their sum over the pixels, diff_bias's share (Sum false: the
// elements are not f32, pairs of bf16, moved as bits and not summed).
template <bool Sum = true>
__m512 to_pixel_major(const float *dy, int64_t plane_stride, int64_t k, int64_t pixels,
                             float *pixel_major, int64_t stride) {
  __m512 sum = _mm512_setzero_ps();
  for (int64_t p0 = 0; p0 < pixels; p0 += 16) {
    const int64_t n = std::min<int64_t>(16, pixels - p0);
    const __mmask16 lanes = static_cast<__mmask16>((1u << n) - 1);
    __m512 r[16];
#pragma GCC unroll 16
    for (int64_t o = 0; o < 16; ++o)
      r[o] = o < k ? _mm512_maskz_loadu_ps(lanes, dy + o * plane_stride + p0) : _mm512_setzero_ps();
    transpose16(r);
#pragma GCC unroll 16
    for (int64_t j = 0; j < 16; ++j) {
      if (j >= n) break;
      _mm512_store_ps(pixel_major + (p0 + j) * stride, r[j]);
      if constexpr (Sum) sum = _mm512_add_ps(sum, r[j]);
    }
  }
  return sum;
}

}  // namespace dlk::cpu::kernels
