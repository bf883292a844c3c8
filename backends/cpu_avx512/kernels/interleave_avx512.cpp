// kernels/interleave_kernels.hpp's merge: 32 columns a step from 16 of each
// row, by vpermt2ps (32-bit elements) or by the odd row's 16-bit elements
// shifted into the high halves of the even row's widened ones. Compiled with
// -mavx512f -mavx512bw -mavx512vl.
#include <algorithm>

#include "backends/cpu_avx512/kernels/interleave_kernels.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"

void interleave_words(const float *even, const float *odd, int64_t width, float *row) {
  const __m512i low = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  const __m512i high =
      _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
  for (int64_t x = 0; x < width; x += 32) {
    const int64_t t = x / 2;
    const __m512 e = _mm512_maskz_loadu_ps(first_lanes((width - x + 1) / 2), even + t);
    const __m512 o = _mm512_maskz_loadu_ps(first_lanes((width - x) / 2), odd + t);
    _mm512_mask_storeu_ps(row + x, first_lanes(width - x), _mm512_permutex2var_ps(e, low, o));
    _mm512_mask_storeu_ps(row + x + 16, first_lanes(width - x - 16),
                          _mm512_permutex2var_ps(e, high, o));
  }
}

void interleave_halves(const uint16_t *even, const uint16_t *odd, int64_t width, uint16_t *row) {
  for (int64_t x = 0; x < width; x += 32) {
    const int64_t t = x / 2;
    const __m512i e =
        _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(first_lanes((width - x + 1) / 2), even + t));
    const __m512i o =
        _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(first_lanes((width - x) / 2), odd + t));
    _mm512_mask_storeu_epi16(row + x, first_words(width - x),
                             _mm512_or_si512(e, _mm512_slli_epi32(o, 16)));
  }
}

}  // namespace

void interleave_columns_avx512(const void *even, const void *odd, int64_t width, size_t elem,
                               void *row) {
  if (elem == 4)
    interleave_words(static_cast<const float *>(even), static_cast<const float *>(odd), width,
                     static_cast<float *>(row));
  else
    interleave_halves(static_cast<const uint16_t *>(even), static_cast<const uint16_t *>(odd),
                      width, static_cast<uint16_t *>(row));
}

}  // namespace dlk::cpu::kernels
