// Compiled with -mavx2 -mfma only; called only when the CPU has both (gemm_kernels.cpp).
#include <immintrin.h>

#include "backends/cpu_avx512/kernels/gemm_tile_avx2.inc"

namespace dlk::cpu::kernels {
namespace {

constexpr int MR = 6, NR = 16;

// R rows and V vectors of the packed MR x NR panels.
template <int R, int V>
void run_tile(int64_t kc, const float *__restrict a, const float *__restrict b,
              const F32Tile &tile) {
  __m256 acc[R][V];
#pragma GCC unroll 6
  for (int i = 0; i < R; ++i)
    for (int v = 0; v < V; ++v) acc[i][v] = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    __m256 bv[V];
    for (int v = 0; v < V; ++v) bv[v] = _mm256_loadu_ps(b + 8 * v);
    _mm_prefetch(reinterpret_cast<const char *>(b + 8 * NR), _MM_HINT_T0);
#pragma GCC unroll 6
    for (int i = 0; i < R; ++i) {
      const __m256 ai = _mm256_broadcast_ss(a + i);
      for (int v = 0; v < V; ++v) acc[i][v] = _mm256_fmadd_ps(ai, bv[v], acc[i][v]);
    }
    a += MR;
    b += NR;
  }
  __m256i mask[V];
  __m256 col_bias[V];
  const __m256 alpha = _mm256_set1_ps(tile.alpha), beta = _mm256_set1_ps(tile.beta);
  const __m256 zero = _mm256_setzero_ps();
  const bool read_c = tile.beta != 0.0f;
  for (int v = 0; v < V; ++v) {
    mask[v] = first_lanes(tile.cols - 8 * v);
    col_bias[v] = tile.col_bias ? _mm256_maskload_ps(tile.col_bias + 8 * v, mask[v]) : zero;
  }
#pragma GCC unroll 6
  for (int i = 0; i < R; ++i) {
    if (i >= tile.rows) break;
    float *c = tile.c + i * tile.ldc;
    for (int v = 0; v < V; ++v) {
      __m256 x = _mm256_mul_ps(alpha, acc[i][v]);
      if (read_c) x = _mm256_fmadd_ps(beta, _mm256_maskload_ps(c + 8 * v, mask[v]), x);
      if (tile.row_bias) x = _mm256_add_ps(x, _mm256_set1_ps(tile.row_bias[i]));
      if (tile.col_bias) x = _mm256_add_ps(x, col_bias[v]);
      // vmaxps returns its second operand when either is NaN: max(0, v) is
      // v < 0 ? 0 : v exactly, NaN and -0 included.
      if (tile.relu) x = _mm256_max_ps(zero, x);
      _mm256_maskstore_ps(c + 8 * v, mask[v], x);
    }
  }
}

}  // namespace

void gemm_f32_avx2_6x16(int64_t kc, const float *__restrict a, const float *__restrict b,
                        const F32Tile &tile) {
  with_tile_shape<MR>(tile.rows, tile.cols, NR / 2, [&](auto r, auto v) {
    run_tile<decltype(r)::value, decltype(v)::value>(kc, a, b, tile);
  });
}

}  // namespace dlk::cpu::kernels
