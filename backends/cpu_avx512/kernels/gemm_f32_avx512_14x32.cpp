// Compiled with -mavx512f only; called only when the CPU has AVX-512 (gemm_kernels.cpp).
#include <immintrin.h>

#include <type_traits>

#include "backends/cpu_avx512/kernels/gemm_tile_store_avx512.inc"
#include "backends/cpu_avx512/kernels/gemm_tile_tail_columns_avx512.inc"

namespace dlk::cpu::kernels {
namespace {

constexpr int MR = 14, NR = 32;

// Where a micro-row's A comes from: the packed panel; rows in place (row i's
// k steps contiguous, tile.a_rs apart); columns in place (a k step's rows
// contiguous, tile.a_cs apart: a 1x1 NHWC weight gradient's diff_dst^T).
enum class ASource { packed, rows, columns };

// Where B comes from: the packed panel; rows in place (tile.b_rs apart), in
// whole vectors; rows in place whose last vector is masked to the tile's
// columns. Whole rows load unmasked: GCC moved the mask into a k register
// every k step, a uop on port 5, which Intel's cores share with the FMAs.
enum class BSource { packed, rows, rows_masked };
// Whether a B in place has its rows prefetched into L2 tile.b_far ahead too: a
// template argument, as a test of tile.b_far every k step slowed the loop that
// does not prefetch by a tenth (Intel).
enum class BFar { no, yes };

// acc += R rows x V vectors of the MR x NR panels (acc may hold more vectors,
// V the first); A from `A`, B from `B`.
template <int R, int V, ASource A, BSource B, BFar Far = BFar::no, int W>
__attribute__((always_inline)) inline void add_tile(int64_t kc, const float *__restrict a,
                                                    const float *__restrict b,
                                                    const F32Tile &tile, __m512 (&acc)[R][W]) {
  constexpr bool BInPlace = B != BSource::packed;
  const int64_t a_step = A == ASource::packed ? MR : A == ASource::rows ? 1 : tile.a_cs;
  const int64_t b_step = BInPlace ? tile.b_rs : NR;
  const int64_t b_far = tile.b_far;
  const __mmask16 b_last =
      B == BSource::rows_masked ? first_lanes(tile.cols - 16 * (V - 1)) : __mmask16(0xFFFF);
  for (int64_t p = 0; p < kc; ++p) {
    __m512 bv[V];
    for (int v = 0; v < V; ++v)
      bv[v] = B == BSource::rows_masked && v == V - 1 ? _mm512_maskz_loadu_ps(b_last, b + 16 * v)
                                                      : _mm512_loadu_ps(b + 16 * v);
    // B streams from L2: fetch eight k steps ahead (a packed row is one line
    // ahead of the next; a row in place may span two lines of its own).
    _mm_prefetch(reinterpret_cast<const char *>(b + 8 * b_step), _MM_HINT_T0);
    if (BInPlace) {
      _mm_prefetch(reinterpret_cast<const char *>(b + 8 * b_step + NR - 1), _MM_HINT_T0);
      if (Far == BFar::yes) {
        _mm_prefetch(reinterpret_cast<const char *>(b + b_far), _MM_HINT_T1);
        _mm_prefetch(reinterpret_cast<const char *>(b + b_far + NR - 1), _MM_HINT_T1);
      }
    }
    // So do A's columns in place, a line or two a k step, rows apart.
    if (A == ASource::columns) {
      _mm_prefetch(reinterpret_cast<const char *>(a + 8 * a_step), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char *>(a + 8 * a_step + R - 1), _MM_HINT_T0);
    }
#pragma GCC unroll 14
    for (int i = 0; i < R; ++i) {
      const __m512 ai = _mm512_set1_ps(A == ASource::rows ? a[i * tile.a_rs] : a[i]);
      for (int v = 0; v < V; ++v) acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
    }
    a += a_step;
    b += b_step;
  }
}

template <int R, int V, ASource A, BSource B, BFar Far = BFar::no>
void run_tile(int64_t kc, const float *__restrict a, const float *__restrict b,
              const F32Tile &tile) {
  run_tile_from_zero<R, V>(tile, [&](__m512(&acc)[R][V]) __attribute__((always_inline)) {
    add_tile<R, V, A, B, Far>(kc, a, b, tile, acc);
  });
}

}  // namespace

void gemm_f32_avx512_14x32(int64_t kc, const float *__restrict a, const float *__restrict b,
                           const F32Tile &tile) {
  // A's rows in place, B packed: whole vectors of columns and the tail in
  // tile.b_tail (gemm_tile_tail_columns_avx512.inc).
  if (tile.b_tail && with_tail_shape(tile.rows, tile.cols, [&](auto r, auto v, auto t) {
        constexpr int R = decltype(r)::value, V = decltype(v)::value;
        run_tile_with_tail<R, V, decltype(t)::value>(
            kc, reinterpret_cast<const char *>(a), tile.a_rs * int64_t{sizeof(float)}, tile,
            [&](auto &acc) __attribute__((always_inline)) {
              add_tile<R, V, ASource::rows, BSource::packed>(kc, a, b, tile, acc);
            },
            [](__m512 sum, __m512 x, __m512 y) { return _mm512_fmadd_ps(x, y, sum); });
      }))
    return;
  with_tile_shape<MR>(tile.rows, tile.cols, NR / 2, [&](auto r, auto v) {
    const auto run = [&](auto a_source) {
      constexpr int R = decltype(r)::value, V = decltype(v)::value;
      constexpr ASource A = decltype(a_source)::value;
      const auto run_in_place = [&](auto b_source) {
        constexpr BSource B = decltype(b_source)::value;
        if (tile.b_far != 0) run_tile<R, V, A, B, BFar::yes>(kc, a, b, tile);
        else run_tile<R, V, A, B>(kc, a, b, tile);
      };
      if (tile.b_rs == 0)
        run_tile<R, V, A, BSource::packed>(kc, a, b, tile);
      else if (tile.cols == 16 * V)
        run_in_place(std::integral_constant<BSource, BSource::rows>{});
      else
        run_in_place(std::integral_constant<BSource, BSource::rows_masked>{});
    };
    if (tile.a_rs != 0)
      run(std::integral_constant<ASource, ASource::rows>{});
    else if (tile.a_cs != 0)
      run(std::integral_constant<ASource, ASource::columns>{});
    else
      run(std::integral_constant<ASource, ASource::packed>{});
  });
}

}  // namespace dlk::cpu::kernels
