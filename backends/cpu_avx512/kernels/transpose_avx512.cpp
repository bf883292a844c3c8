// kernels/transpose_kernels.hpp's transpose: 16 rows of up to 16 elements
// loaded (masked at the matrix's edge; 8- and 16-bit elements widened to 32),
// transpose16, 16 rows stored (narrowed back). Compiled with -mavx512f
// -mavx512bw -mavx512vl.
#include <algorithm>

#include "backends/cpu_avx512/kernels/transpose16_avx512.hpp"
#include "backends/cpu_avx512/kernels/transpose_kernels.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"

template <class E>
void transpose_blocks(const E *in, int64_t rows, int64_t cols, int64_t ld_in, E *out,
                      int64_t ld_out) {
  for (int64_t i0 = 0; i0 < rows; i0 += 16)
    for (int64_t j0 = 0; j0 < cols; j0 += 16) {
      const __mmask16 along = first_lanes(cols - j0), down = first_lanes(rows - i0);
      const int64_t n_rows = std::min<int64_t>(16, rows - i0);
      const int64_t n_cols = std::min<int64_t>(16, cols - j0);
      __m512 r[16];
      for (int64_t i = 0; i < 16; ++i) {
        const E *from = in + (i0 + i) * ld_in + j0;
        if (i >= n_rows)
          r[i] = _mm512_setzero_ps();
        else if constexpr (sizeof(E) == 4)
          r[i] = _mm512_maskz_loadu_ps(along, from);
        else if constexpr (sizeof(E) == 1)
          r[i] = _mm512_castsi512_ps(_mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(along, from)));
        else
          r[i] = _mm512_castsi512_ps(
              _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(along, from)));
      }
      transpose16(r);
      for (int64_t j = 0; j < n_cols; ++j) {
        E *to = out + (j0 + j) * ld_out + i0;
        if constexpr (sizeof(E) == 4)
          _mm512_mask_storeu_ps(to, down, r[j]);
        else if constexpr (sizeof(E) == 1)
          _mm512_mask_cvtepi32_storeu_epi8(to, down, _mm512_castps_si512(r[j]));
        else
          _mm512_mask_cvtepi32_storeu_epi16(to, down, _mm512_castps_si512(r[j]));
      }
    }
}

}  // namespace

void transpose_avx512(const void *in, int64_t rows, int64_t cols, int64_t ld_in, size_t elem,
                      void *out, int64_t ld_out) {
  if (elem == 1)
    transpose_blocks(static_cast<const uint8_t *>(in), rows, cols, ld_in,
                     static_cast<uint8_t *>(out), ld_out);
  else if (elem == 2)
    transpose_blocks(static_cast<const uint16_t *>(in), rows, cols, ld_in,
                     static_cast<uint16_t *>(out), ld_out);
  else
    transpose_blocks(static_cast<const float *>(in), rows, cols, ld_in, static_cast<float *>(out),
                     ld_out);
}

}  // namespace dlk::cpu::kernels
