// Compiled with -mavx512f -mavx512bf16 only; called only when the CPU has
// AVX512_BF16 (gemm_kernels.cpp).
#include <immintrin.h>

#include <cstring>

#include "backends/cpu_avx512/kernels/gemm_tile_store_avx512.inc"

namespace dlk::cpu::kernels {
namespace {

constexpr int MR = 14, NR = 32;

// R rows and V vectors of the MR x NR k-pair panels; A packed, or read in
// place where tile.a_rs says (AInPlace).
template <int R, int V, bool AInPlace>
void run_tile(int64_t kc, const uint16_t *__restrict a, const uint16_t *__restrict b,
              const F32Tile &tile) {
  prefetch_c_tile(tile.c, tile.ldc, tile.rows, tile.cols);
  __m512 acc[R][V];
#pragma GCC unroll 14
  for (int i = 0; i < R; ++i)
    for (int v = 0; v < V; ++v) acc[i][v] = _mm512_setzero_ps();
  for (int64_t q = 0; q < kc / 2; ++q) {
    __m512bh bv[V];
    for (int v = 0; v < V; ++v) bv[v] = (__m512bh)_mm512_loadu_si512(b + 32 * v);
    _mm_prefetch(reinterpret_cast<const char *>(b + 8 * NR * 2), _MM_HINT_T0);
#pragma GCC unroll 14
    for (int i = 0; i < R; ++i) {
      int32_t pair;
      std::memcpy(&pair, AInPlace ? a + i * tile.a_rs : a + 2 * i, sizeof pair);
      const __m512bh ai = (__m512bh)_mm512_set1_epi32(pair);
      for (int v = 0; v < V; ++v) acc[i][v] = _mm512_dpbf16_ps(acc[i][v], ai, bv[v]);
    }
    a += AInPlace ? 2 : MR * 2;
    b += NR * 2;
  }
  store_tile_avx512<R, V>(acc, tile);
}

}  // namespace

void gemm_bf16_avx512bf16_14x32(int64_t kc, const uint16_t *__restrict a,
                                const uint16_t *__restrict b, const F32Tile &tile) {
  with_tile_shape<MR>(tile.rows, tile.cols, NR / 2, [&](auto r, auto v) {
    with_flag(tile.a_rs != 0, [&](auto a_in_place) {
      run_tile<decltype(r)::value, decltype(v)::value, decltype(a_in_place)::value>(kc, a, b, tile);
    });
  });
}

}  // namespace dlk::cpu::kernels
