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

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"
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

namespace {

// Up to 16 taps: a pair of channels' taps in one zmm, channel 2u's at word 0
// and 2u + 1's at word `second`, and one vpermw (out word 2t + i = tap t of
// channel 2u + i; turned: tap khw - 1 - t) puts them in pairs. Per pair of
// channels one or two loads, one permutation and one store where the taps a
// step, below, took 12 % of res4b's bf16 forward at batch 1. The permutation's
// index, built once per call:
__m512i taps_to_pairs(int64_t khw, bool turned) {
  const int64_t second = turned ? 16 : khw;
  alignas(64) uint16_t index[32];
  for (int64_t t = 0; t < 16; ++t)
    for (int64_t i = 0; i < 2; ++i)
      index[2 * t + i] =
          t < khw ? static_cast<uint16_t>(i * second + (turned ? khw - 1 - t : t)) : 0;
  return _mm512_load_si512(index);
}

// One output channel's pairs by that permutation.
void pair_few_taps(const uint16_t *w, int64_t k, int64_t c, int64_t khw, bool turned, int64_t o,
                   __m512i to_pairs, uint32_t *row) {
  const auto units = static_cast<__mmask16>((1u << khw) - 1u);
  for (int64_t u = 0; 2 * u < c; ++u) {
    const int64_t both = std::min<int64_t>(2, c - 2 * u);
    __m512i taps;
    if (!turned) {
      taps = _mm512_maskz_loadu_epi16(first_words(both * khw), w + (o * c + 2 * u) * khw);
    } else {
      // Channel 2u + 1's row into words 16 on: loaded from 16 words before it,
      // those lanes masked off.
      taps = _mm512_maskz_loadu_epi16(first_words(khw), w + (2 * u * k + o) * khw);
      if (both > 1)
        taps = _mm512_mask_loadu_epi16(
            taps, first_words(khw) << 16,
            lane_address(w + ((2 * u + 1) * k + o) * khw, -16));
    }
    _mm512_mask_storeu_epi32(row + u * khw, units, _mm512_permutexvar_epi16(to_pairs, taps));
  }
}

// More taps: 16 taps of a channel a step, widened, the second channel's
// shifted into the pairs' high words.
void pair_many_taps(const uint16_t *w, int64_t k, int64_t c, int64_t khw, bool turned, int64_t o,
                    uint32_t *row) {
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
        in_row, lane_address(base, start));
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

}  // namespace

void wide_rows_bf16_pair_weights(const uint16_t *w, int64_t k, int64_t c, int64_t khw, bool turned,
                                 int64_t first, int64_t count, int64_t row_stride, uint32_t *rows) {
  if (khw <= 16) {
    const __m512i to_pairs = taps_to_pairs(khw, turned);
    for (int64_t o = first; o < first + count; ++o)
      pair_few_taps(w, k, c, khw, turned, o, to_pairs, rows + (o - first) * row_stride);
  } else {
    for (int64_t o = first; o < first + count; ++o)
      pair_many_taps(w, k, c, khw, turned, o, rows + (o - first) * row_stride);
  }
}

}  // namespace dlk::cpu::kernels
