// Compiled with -mavx512f -mavx512vnni only (EVEX vpdpbusd); called only when
// the CPU has AVX512_VNNI (gemm_kernels.cpp).
#include <immintrin.h>

#include <cstring>
#include <type_traits>

#include "backends/cpu_avx512/kernels/gemm_tile_store_avx512.inc"
#include "backends/cpu_avx512/kernels/gemm_tile_tail_columns_avx512.inc"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/requantize_avx512.inc"

constexpr int MR = 14, NR = 32;

// R rows and V vectors of the MR x NR k-quad panels; A packed, or read in
// place where tile.a_rs says (AInPlace). vpdpbusd multiplies the u8 bytes of
// its first source by the s8 bytes of its second, so a u8 A (AType uint8_t)
// is broadcast as the first source and B as the second, its zero point
// compensated per column; an s8 A (the weights with the output channels as
// rows) is the broadcast second source, the u8 B the first, B's zero point
// compensated per row. T > 0 (A in place): T more columns past the V vectors
// in tile.b_tail (gemm_tile_tail_columns_avx512.inc).
template <int R, int V, int T, bool AInPlace, class AType, class BType>
void run_tile(int64_t kc, const AType *__restrict a, const BType *__restrict b,
              const S32Tile &tile) {
  constexpr bool u8_a = std::is_same_v<AType, uint8_t>;
  constexpr int W = V + (T > 0 ? 1 : 0);
  prefetch_c_tile(tile);
  __m512i acc[R][W];
#pragma GCC unroll 14
  for (int i = 0; i < R; ++i)
    for (int v = 0; v < W; ++v) acc[i][v] = _mm512_setzero_si512();
  // The tail first: after the k loop (as the f32 and bf16 kernels sum theirs,
  // 2-4 % faster so) res5's int8 GEMMs ran 0.84x (AMD EPYC Zen 5).
  if constexpr (T > 0)
    add_tail_columns<R, V, T>(kc / 4, reinterpret_cast<const char *>(a), tile.a_rs, tile.b_tail,
                              tile.b_tail_ld, acc, [](__m512i sum, __m512i x, __m512i y) {
                                return u8_a ? _mm512_dpbusd_epi32(sum, x, y)
                                            : _mm512_dpbusd_epi32(sum, y, x);
                              });
  for (int64_t q = 0; q < (V > 0 ? kc / 4 : 0); ++q) {
    __m512i bv[V];
    for (int v = 0; v < V; ++v) bv[v] = _mm512_loadu_si512(b + 64 * v);
    _mm_prefetch(reinterpret_cast<const char *>(b + 8 * NR * 4), _MM_HINT_T0);
#pragma GCC unroll 14
    for (int i = 0; i < R; ++i) {
      int32_t quad;
      std::memcpy(&quad, AInPlace ? a + i * tile.a_rs : a + 4 * i, sizeof quad);
      const __m512i ai = _mm512_set1_epi32(quad);
      for (int v = 0; v < V; ++v)
        acc[i][v] = u8_a ? _mm512_dpbusd_epi32(acc[i][v], ai, bv[v])
                         : _mm512_dpbusd_epi32(acc[i][v], bv[v], ai);
    }
    a += AInPlace ? 4 : MR * 4;
    b += NR * 4;
  }
  __mmask16 mask[W];
  for (int v = 0; v < W; ++v) mask[v] = first_lanes(tile.cols - 16 * v);
  // The tile's fields are read once: each store to C may alias them.
  const int rows = tile.rows;
  const bool accumulate = tile.accumulate;
  const int32_t zero = u8_a ? tile.a_zero : tile.b_zero;
  const int32_t *const row_sums = tile.row_sums;
  int32_t *const c = tile.c;
  const int64_t ldc = tile.ldc;
  // A tile with neither a zero point nor an earlier k block is stored as
  // summed, as the f32 store does (gemm_tile_store_avx512.inc): ResNet-50's
  // int8 1x1 forward over 64 channels 1.04-1.16x. Not with tail columns: GCC
  // then spilled their sums in the k loop (res5's 1x1 layers 0.87-0.90x).
  if (T == 0 && !accumulate && !tile.requantize && zero == 0) {
#pragma GCC unroll 14
    for (int i = 0; i < R; ++i) {
      if (i >= rows) break;
      for (int v = 0; v < W; ++v)
        _mm512_mask_storeu_epi32(c + i * ldc + 16 * v, mask[v], acc[i][v]);
    }
    return;
  }
  __m512i col_comp[W];
  for (int v = 0; v < W; ++v) {
    const __m512i sums = u8_a && zero ? _mm512_maskz_loadu_epi32(mask[v], tile.col_sums + 16 * v)
                                      : _mm512_setzero_si512();
    col_comp[v] = _mm512_mullo_epi32(_mm512_set1_epi32(zero), sums);
  }
  // v of each element (S32Tile's rule) to `store(i, v, x)`.
  const auto finish = [&](auto store) {
#pragma GCC unroll 14
    for (int i = 0; i < R; ++i) {
      if (i >= rows) break;
      // Wrapping modulo 2^32, as the vector products do.
      const __m512i row_comp = _mm512_set1_epi32(static_cast<int32_t>(
          !u8_a && zero ? static_cast<uint32_t>(zero) * static_cast<uint32_t>(row_sums[i])
                        : 0u));
      for (int v = 0; v < W; ++v) {
        __m512i x = acc[i][v];
        if (zero) x = _mm512_sub_epi32(x, u8_a ? col_comp[v] : row_comp);
        if (accumulate)
          x = _mm512_add_epi32(x, _mm512_maskz_loadu_epi32(mask[v], c + i * ldc + 16 * v));
        store(i, v, x);
      }
    }
  };
  // Into bytes while the sums are in registers: through the workspace and the
  // store after the block, ResNet-50's 1x1 int8 forward into u8 took 1.5x the
  // time of the same into s32 (res2a_1x1a, k = 64, AMD EPYC Zen 4).
  if (tile.requantize) {
    const S32Requantize q = *tile.requantize;
    const __m512 floor = _mm512_set1_ps(q.floor), above = _mm512_set1_ps(q.above);
    const __m512i zero_point = _mm512_set1_epi32(q.zero_point);
    finish([&](int i, int v, __m512i x) {
      const __m512 scale = q.col_multipliers
                               ? _mm512_maskz_loadu_ps(mask[v], q.col_multipliers + 16 * v)
                               : _mm512_set1_ps(q.row_multipliers ? q.row_multipliers[i]
                                                                  : q.multiplier);
      __m512 y = _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(0xffff, x), scale);
      if (q.row_bias) y = _mm512_add_ps(y, _mm512_set1_ps(q.row_bias[i]));
      if (q.col_bias) y = _mm512_add_ps(y, _mm512_maskz_loadu_ps(mask[v], q.col_bias + 16 * v));
      _mm512_mask_cvtepi32_storeu_epi8(static_cast<char *>(q.c) + i * q.ldc + 16 * v, mask[v],
                                       requantize16_finite(y, floor, above, zero_point));
    });
    return;
  }
  finish([&](int i, int v, __m512i x) {
    _mm512_mask_storeu_epi32(c + i * ldc + 16 * v, mask[v], x);
  });
}

template <class AType, class BType>
void run_shape(int64_t kc, const AType *a, const BType *b, const S32Tile &tile) {
  if (tile.b_tail && with_tail_shape(tile.rows, tile.cols, [&](auto r, auto v, auto t) {
        run_tile<decltype(r)::value, decltype(v)::value, decltype(t)::value, true>(kc, a, b,
                                                                                   tile);
      }))
    return;
  with_tile_shape<MR>(tile.rows, tile.cols, NR / 2, [&](auto r, auto v) {
    with_flag(tile.a_rs != 0, [&](auto a_in_place) {
      run_tile<decltype(r)::value, decltype(v)::value, 0, decltype(a_in_place)::value>(kc, a, b,
                                                                                        tile);
    });
  });
}

}  // namespace

void gemm_s32_avx512vnni_14x32(int64_t kc, const uint8_t *__restrict a,
                               const int8_t *__restrict b, const S32Tile &tile) {
  run_shape(kc, a, b, tile);
}

void gemm_s8u8s32_avx512vnni_14x32(int64_t kc, const int8_t *__restrict a,
                                   const uint8_t *__restrict b, const S32Tile &tile) {
  run_shape(kc, a, b, tile);
}

}  // namespace dlk::cpu::kernels
