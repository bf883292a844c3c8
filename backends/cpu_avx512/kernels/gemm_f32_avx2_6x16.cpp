// Compiled with -mavx2 -mfma only; called only when the CPU has both (gemm_kernels.cpp).
#include <immintrin.h>

#include "backends/cpu_avx512/kernels/gemm_microkernel.hpp"

namespace dlk::cpu::kernels {
namespace {

constexpr int MR = 6, NR = 16;

// Lanes j < cols have their sign bit set, as vmaskmovps wants.
__m256i column_mask(int cols) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(cols), lanes);
}

}  // namespace

void gemm_f32_avx2_6x16(int64_t kc, const float *__restrict a, const float *__restrict b,
                        const F32Tile &tile) {
  __m256 acc[MR][2];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
    _mm_prefetch(reinterpret_cast<const char *>(b + 8 * NR), _MM_HINT_T0);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      const __m256 ai = _mm256_broadcast_ss(a + i);
      acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
    }
    a += MR;
    b += NR;
  }
  const __m256i m0 = column_mask(tile.cols), m1 = column_mask(tile.cols - 8);
  const __m256 alpha = _mm256_set1_ps(tile.alpha), beta = _mm256_set1_ps(tile.beta);
  const __m256 zero = _mm256_setzero_ps();
  const bool read_c = tile.beta != 0.0f;
  __m256 col_bias0 = zero, col_bias1 = zero;
  if (tile.col_bias) {
    col_bias0 = _mm256_maskload_ps(tile.col_bias, m0);
    col_bias1 = _mm256_maskload_ps(tile.col_bias + 8, m1);
  }
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    if (i >= tile.rows) break;
    float *c = tile.c + i * tile.ldc;
    __m256 v0 = _mm256_mul_ps(alpha, acc[i][0]), v1 = _mm256_mul_ps(alpha, acc[i][1]);
    if (read_c) {
      v0 = _mm256_fmadd_ps(beta, _mm256_maskload_ps(c, m0), v0);
      v1 = _mm256_fmadd_ps(beta, _mm256_maskload_ps(c + 8, m1), v1);
    }
    if (tile.row_bias) {
      const __m256 bias = _mm256_set1_ps(tile.row_bias[i]);
      v0 = _mm256_add_ps(v0, bias), v1 = _mm256_add_ps(v1, bias);
    }
    if (tile.col_bias) v0 = _mm256_add_ps(v0, col_bias0), v1 = _mm256_add_ps(v1, col_bias1);
    // vmaxps returns its second operand when either is NaN: max(0, v) is
    // v < 0 ? 0 : v exactly, NaN and -0 included.
    if (tile.relu) v0 = _mm256_max_ps(zero, v0), v1 = _mm256_max_ps(zero, v1);
    _mm256_maskstore_ps(c, m0, v0);
    _mm256_maskstore_ps(c + 8, m1, v1);
  }
}

}  // namespace dlk::cpu::kernels
