// The wide-row kernel's bf16 tiles (kernels/conv2d_direct_kernels.hpp): the
// padded planes and the weights hold k-pairs (channels 2u and 2u + 1 of a
// pixel, of a tap) in each 32-bit element, so one vdpbf16ps per weight pair
// and vector of 16 wide columns does two multiply-adds a lane, where the
// widened kernel needs two FMAs; and the pairing of the weights. Compiled with
// -mavx512f -mavx512bw -mavx512vl -mavx512bf16 only (the avx512 tier has BW
// and VL); called only where the CPU has AVX512_BF16 (bf16_dot_outpaces_fma).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "backends/cpu_avx512/kernels/conv2d_direct_kernels.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/conv2d_wide_rows_tile_avx512.inc"

struct DotBf16 : SumsF32 {
  static __m512 madd(__m512 acc, __m512 a, __m512 b) {
    return _mm512_dpbf16_ps(acc, (__m512bh)_mm512_castps_si512(a),
                            (__m512bh)_mm512_castps_si512(b));
  }
};

}  // namespace

WideRowsTile wide_rows_bf16_tile(int rows, int vectors) {
  return wide_rows_tile_of<DotBf16>(rows, vectors);
}

void wide_rows_bf16_pair_weights(const uint16_t *w, int64_t k, int64_t c, int64_t khw, bool turned,
                                 int64_t o, uint32_t *row) {
  // Taps t0 .. t0 + 15 of input channel ci, as 32-bit lanes (turned: W[ci][o]
  // with the taps reversed, the reversal a permutation of the 16 lanes).
  const auto taps = [&](int64_t ci, int64_t t0, __mmask16 mask) {
    if (!turned)
      return _mm512_maskz_cvtepu16_epi32(
          0xffff, _mm256_maskz_loadu_epi16(mask, w + (o * c + ci) * khw + t0));
    // Lane l is tap t0 + l, W[ci][o][khw - 1 - t0 - l]: the 16 taps ending
    // there, loaded where they lie inside the row (lanes before it masked
    // off), reversed.
    const int64_t last = khw - 1 - t0;  // the row's tap of lane 0
    const int64_t start = last - 15;
    const __mmask16 in_row = static_cast<__mmask16>(0xffffu << std::max<int64_t>(0, -start));
    const uint16_t *base = w + (ci * k + o) * khw;
    const __m256i loaded = _mm256_maskz_loadu_epi16(
        in_row, reinterpret_cast<const uint16_t *>(reinterpret_cast<uintptr_t>(base) +
                                                   static_cast<uintptr_t>(start) * 2));
    const __m256i reverse =
        _mm256_set_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm512_maskz_cvtepu16_epi32(mask, _mm256_permutexvar_epi16(reverse, loaded));
  };
  for (int64_t u = 0; 2 * u < c; ++u)
    for (int64_t t0 = 0; t0 < khw; t0 += 16) {
      const auto mask = static_cast<__mmask16>((1u << std::min<int64_t>(16, khw - t0)) - 1u);
      __m512i pair = taps(2 * u, t0, mask);
      if (2 * u + 1 < c)
        pair = _mm512_or_si512(pair,
                               _mm512_maskz_slli_epi32(0xffff, taps(2 * u + 1, t0, mask), 16));
      _mm512_mask_storeu_epi32(row + u * khw + t0, mask, pair);
    }
}

}  // namespace dlk::cpu::kernels
