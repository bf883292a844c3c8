// Compiled with -mavx512f only; called only when the CPU has AVX-512 (gemm_kernels.cpp).
#include <immintrin.h>

#include "backends/cpu_avx512/kernels/gemm_tile_store_avx512.inc"

namespace dlk::cpu::kernels {
namespace {

constexpr int MR = 14, NR = 32;

// R rows and V vectors of the MR x NR panels; A packed, or read in place
// where tile.a_rs says (AInPlace).
template <int R, int V, bool AInPlace>
void run_tile(int64_t kc, const float *__restrict a, const float *__restrict b,
              const F32Tile &tile) {
  prefetch_c_tile(tile.c, tile.ldc, tile.rows, tile.cols);
  __m512 acc[R][V];
#pragma GCC unroll 14
  for (int i = 0; i < R; ++i)
    for (int v = 0; v < V; ++v) acc[i][v] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    __m512 bv[V];
    for (int v = 0; v < V; ++v) bv[v] = _mm512_loadu_ps(b + 16 * v);
    // The B micro-panel streams from L2: fetch the line eight k steps ahead.
    _mm_prefetch(reinterpret_cast<const char *>(b + 8 * NR), _MM_HINT_T0);
#pragma GCC unroll 14
    for (int i = 0; i < R; ++i) {
      const __m512 ai = _mm512_set1_ps(AInPlace ? a[i * tile.a_rs] : a[i]);
      for (int v = 0; v < V; ++v) acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
    }
    a += AInPlace ? 1 : MR;
    b += NR;
  }
  store_tile_avx512<R, V>(acc, tile);
}

}  // namespace

void gemm_f32_avx512_14x32(int64_t kc, const float *__restrict a, const float *__restrict b,
                           const F32Tile &tile) {
  with_tile_shape<MR>(tile.rows, tile.cols, NR / 2, [&](auto r, auto v) {
    if (tile.a_rs)
      run_tile<decltype(r)::value, decltype(v)::value, true>(kc, a, b, tile);
    else
      run_tile<decltype(r)::value, decltype(v)::value, false>(kc, a, b, tile);
  });
}

}  // namespace dlk::cpu::kernels
