// kernels/transpose_kernels.hpp's transpose: 16 rows of up to 16 32-bit
// elements loaded (masked at the matrix's edge), transpose16, 16 rows stored;
// 8- and 16-bit elements by 32-bit lanes of 4 or 2 rows. Compiled with
// -mavx512f -mavx512bw -mavx512vl.
#include <algorithm>

#include "backends/cpu_avx512/kernels/transpose16_avx512.hpp"
#include "backends/cpu_avx512/kernels/transpose_kernels.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"

void transpose_words(const float *in, int64_t rows, int64_t cols, int64_t ld_in, float *out,
                     int64_t ld_out) {
  for (int64_t i0 = 0; i0 < rows; i0 += 16)
    for (int64_t j0 = 0; j0 < cols; j0 += 16) {
      const __mmask16 along = first_lanes(cols - j0), down = first_lanes(rows - i0);
      const int64_t n_rows = std::min<int64_t>(16, rows - i0);
      const int64_t n_cols = std::min<int64_t>(16, cols - j0);
      __m512 r[16];
      for (int64_t i = 0; i < 16; ++i)
        r[i] = i < n_rows ? _mm512_maskz_loadu_ps(along, in + (i0 + i) * ld_in + j0)
                          : _mm512_setzero_ps();
      transpose16(r);
      for (int64_t j = 0; j < n_cols; ++j)
        _mm512_mask_storeu_ps(out + (j0 + j) * ld_out + i0, down, r[j]);
    }
}

// Elements of 8 or 16 bits in blocks of (4 / size) x 16 rows by 16 columns:
// the 4 / size rows of a group widened into the bytes of 16 32-bit lanes (a
// lane a column), the 16 groups turned by transpose16, each lane row then a
// column's 64 bytes, one store. (Each row widened to 32 bits and narrowed back
// by its own masked store ran 16-bit NCHW images into NHWC at 10 GB/s.)
template <class E>
void transpose_narrow(const E *in, int64_t rows, int64_t cols, int64_t ld_in, E *out,
                      int64_t ld_out) {
  constexpr int64_t per = 4 / int64_t{sizeof(E)};  // elements of a lane
  constexpr int64_t block = 16 * per;              // rows of a block
  for (int64_t i0 = 0; i0 < rows; i0 += block)
    for (int64_t j0 = 0; j0 < cols; j0 += 16) {
      const __mmask16 along = first_lanes(cols - j0);
      const int64_t n_rows = std::min(block, rows - i0);
      const int64_t n_cols = std::min<int64_t>(16, cols - j0);
      // Row i of the block widened into 32-bit lanes (zeros past the rows).
      const auto row = [&](int64_t i) {
        if (i >= n_rows) return _mm512_setzero_si512();
        const E *from = in + (i0 + i) * ld_in + j0;
        if constexpr (sizeof(E) == 2)
          return _mm512_maskz_cvtepu16_epi32(0xffff, _mm256_maskz_loadu_epi16(along, from));
        else
          return _mm512_maskz_cvtepu8_epi32(0xffff, _mm_maskz_loadu_epi8(along, from));
      };
      __m512 r[16];
      for (int64_t g = 0; g < 16; ++g) {
        const int64_t i = g * per;
        __m512i v;
        if constexpr (sizeof(E) == 2) {
          v = _mm512_or_si512(row(i), _mm512_maskz_slli_epi32(0xffff, row(i + 1), 16));
        } else {
          v = _mm512_or_si512(
              _mm512_or_si512(row(i), _mm512_maskz_slli_epi32(0xffff, row(i + 1), 8)),
              _mm512_or_si512(_mm512_maskz_slli_epi32(0xffff, row(i + 2), 16),
                              _mm512_maskz_slli_epi32(0xffff, row(i + 3), 24)));
        }
        r[g] = _mm512_castsi512_ps(v);
      }
      transpose16(r);
      const __mmask64 down = first_bytes64(n_rows * int64_t{sizeof(E)});
      for (int64_t j = 0; j < n_cols; ++j)
        _mm512_mask_storeu_epi8(out + (j0 + j) * ld_out + i0, down, _mm512_castps_si512(r[j]));
    }
}

}  // namespace

void transpose_avx512(const void *in, int64_t rows, int64_t cols, int64_t ld_in, size_t elem,
                      void *out, int64_t ld_out) {
  if (elem == 1)
    transpose_narrow(static_cast<const uint8_t *>(in), rows, cols, ld_in,
                     static_cast<uint8_t *>(out), ld_out);
  else if (elem == 2)
    transpose_narrow(static_cast<const uint16_t *>(in), rows, cols, ld_in,
                     static_cast<uint16_t *>(out), ld_out);
  else
    transpose_words(static_cast<const float *>(in), rows, cols, ld_in, static_cast<float *>(out),
                    ld_out);
}

}  // namespace dlk::cpu::kernels
