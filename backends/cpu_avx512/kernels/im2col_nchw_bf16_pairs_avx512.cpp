// The bf16 NCHW im2col panel (the bf16 GEMM's k-pairs, as its B with pixels as
// columns or its A with pixels as rows) in AVX-512 steps. For each pair of taps
// and each piece of at most 16 pixels (kernels/im2col_nchw_pieces.hpp), the 2
// taps' values are masked loads from their input rows (stride 2: 32 values,
// their even ones by vpmovdw), the padding lanes zero, then widened and
// interleaved into 16 pairs and stored in one masked store. The element loops
// of conv2d_im2col_packer.cpp worked out each stretch's clipping for every tap:
// 22 % of ResNet-50's res5b bf16 forward at batch 1.
// Compiled with -mavx512f -mavx512bw -mavx512vl.
#include <algorithm>

#include "backends/cpu_avx512/kernels/im2col_kernels.hpp"
#include "backends/cpu_avx512/kernels/im2col_nchw_pieces.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"

}  // namespace

bool im2col_nchw_bf16_pairs_avx512(const ConvShape &s, const uint16_t *src, int64_t p0,
                                   int64_t kc, int64_t j0, int64_t cols, int width,
                                   uint16_t *out) {
  const Im2colPanelReads reads(s, j0, cols);
  const int count = reads.count;
  if (count == 0) return false;
  for_each_tap_group<2>(s, src, p0, kc, [&](int64_t p, const uint16_t *const (&planes)[2],
                                            const int64_t (&position)[2]) {
    uint16_t *units = out + p * width;
    for (int i = 0; i < count; ++i) {
      __m512i x[2];
      for (int e = 0; e < 2; ++e) {
        const int64_t entry = position[e] * count + i;
        const Im2colReading &reading = reads.readings[entry];
        if (!planes[e] || !reading.valid) {
          x[e] = _mm512_setzero_si512();
          continue;
        }
        const uint16_t *in = planes[e] + reading.offset;
        const __m256i values =
            s.stride_w == 1
                ? _mm256_maskz_loadu_epi16(static_cast<__mmask16>(reading.valid), in)
                : _mm512_cvtepi32_epi16(
                      _mm512_maskz_loadu_epi16(reads.even_of_32[entry], in));
        x[e] = _mm512_cvtepu16_epi32(values);
      }
      const __m512i pairs = _mm512_or_si512(x[0], _mm512_slli_epi32(x[1], 16));
      const Im2colPiece &piece = reads.pieces[i];
      _mm512_mask_storeu_epi32(units + piece.t0 * 2, first_lanes(piece.n), pairs);
    }
    for (int64_t t = cols; t < width; t += 16)
      _mm512_mask_storeu_epi32(units + t * 2, first_lanes(width - t), _mm512_setzero_si512());
  });
  return true;
}

}  // namespace dlk::cpu::kernels
