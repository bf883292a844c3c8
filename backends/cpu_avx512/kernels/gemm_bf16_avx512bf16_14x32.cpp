// Compiled with -mavx512f -mavx512bw -mavx512bf16 only; called only when the CPU has
// AVX512_BF16 (gemm_kernels.cpp).
#include <immintrin.h>

#include <cstring>

#include "backends/cpu_avx512/kernels/gemm_tile_store_avx512.inc"
#include "backends/cpu_avx512/kernels/gemm_tile_tail_columns_avx512.inc"

namespace dlk::cpu::kernels {
namespace {

constexpr int MR = 14, NR = 32;

// The vpermt2w indices that interleave two rows of 32 bf16 columns into the
// k-pairs of columns 16 v .. 16 v + 15: lane 2 t from the first row, 2 t + 1
// from the second, column 16 v + t.
__m512i pair_indices(int v) {
  alignas(64) int16_t index[32];
  for (int t = 0; t < 32; ++t) index[t] = static_cast<int16_t>((t & 1 ? 32 : 0) + 16 * v + t / 2);
  return _mm512_load_si512(index);
}

// acc += R rows x V vectors of the MR x NR k-pair panels (acc may hold more
// vectors, V the first); A packed, or read in place where tile.a_rs says
// (AInPlace); B likewise with tile.b_rs (BInPlace): rows 2 q and 2 q + 1 of the
// tile's columns, loaded masked to them and interleaved into k-pairs by
// vpermt2w.
template <int R, int V, bool AInPlace, bool BInPlace, int W>
__attribute__((always_inline)) inline void add_tile(int64_t kc, const uint16_t *__restrict a,
                                                    const uint16_t *__restrict b,
                                                    const F32Tile &tile, __m512 (&acc)[R][W]) {
  const int64_t b_step = BInPlace ? 2 * tile.b_rs : NR * 2;
  const __mmask32 b_columns = BInPlace && tile.cols < 32 ? (1u << tile.cols) - 1 : ~0u;
  __m512i pairs[V];
  for (int v = 0; v < V; ++v) pairs[v] = BInPlace ? pair_indices(v) : _mm512_setzero_si512();
  for (int64_t q = 0; q < kc / 2; ++q) {
    __m512bh bv[V];
    if (BInPlace) {
      const __m512i first = _mm512_maskz_loadu_epi16(b_columns, b);
      const __m512i second = _mm512_maskz_loadu_epi16(b_columns, b + tile.b_rs);
      for (int v = 0; v < V; ++v)
        bv[v] = (__m512bh)_mm512_permutex2var_epi16(first, pairs[v], second);
      _mm_prefetch(reinterpret_cast<const char *>(b + 8 * b_step), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char *>(b + 8 * b_step + tile.b_rs), _MM_HINT_T0);
    } else {
      for (int v = 0; v < V; ++v) bv[v] = (__m512bh)_mm512_loadu_si512(b + 32 * v);
      _mm_prefetch(reinterpret_cast<const char *>(b + 8 * b_step), _MM_HINT_T0);
    }
#pragma GCC unroll 14
    for (int i = 0; i < R; ++i) {
      int32_t pair;
      std::memcpy(&pair, AInPlace ? a + i * tile.a_rs : a + 2 * i, sizeof pair);
      const __m512bh ai = (__m512bh)_mm512_set1_epi32(pair);
      for (int v = 0; v < V; ++v) acc[i][v] = _mm512_dpbf16_ps(acc[i][v], ai, bv[v]);
    }
    a += AInPlace ? 2 : MR * 2;
    b += b_step;
  }
}

template <int R, int V, bool AInPlace, bool BInPlace>
void run_tile(int64_t kc, const uint16_t *__restrict a, const uint16_t *__restrict b,
              const F32Tile &tile) {
  run_tile_from_zero<R, V>(tile, [&](__m512(&acc)[R][V]) __attribute__((always_inline)) {
    add_tile<R, V, AInPlace, BInPlace>(kc, a, b, tile, acc);
  });
}

}  // namespace

void gemm_bf16_avx512bf16_14x32(int64_t kc, const uint16_t *__restrict a,
                                const uint16_t *__restrict b, const F32Tile &tile) {
  // A in place, B packed: whole vectors of columns and the tail in tile.b_tail
  // (gemm_tile_tail_columns_avx512.inc).
  if (tile.b_tail && with_tail_shape(tile.rows, tile.cols, [&](auto r, auto v, auto t) {
        constexpr int R = decltype(r)::value, V = decltype(v)::value;
        run_tile_with_tail<R, V, decltype(t)::value>(
            kc / 2, reinterpret_cast<const char *>(a), tile.a_rs * int64_t{sizeof(uint16_t)},
            tile,
            [&](auto &acc) __attribute__((always_inline)) {
              add_tile<R, V, true, false>(kc, a, b, tile, acc);
            },
            [](__m512 sum, __m512 x, __m512 y) {
              return _mm512_dpbf16_ps(sum, (__m512bh)x, (__m512bh)y);
            });
      }))
    return;
  with_tile_shape<MR>(tile.rows, tile.cols, NR / 2, [&](auto r, auto v) {
    with_flag(tile.a_rs != 0, [&](auto a_in_place) {
      with_flag(tile.b_rs != 0, [&](auto b_in_place) {
        run_tile<decltype(r)::value, decltype(v)::value, decltype(a_in_place)::value,
                 decltype(b_in_place)::value>(kc, a, b, tile);
      });
    });
  });
}

}  // namespace dlk::cpu::kernels
