// Compiled with -mavx2 only; called only when the CPU has it (gemm_kernels.cpp).
//
// AVX2 has no exact u8 x s8 dot product (vpmaddubsw saturates its 16-bit pair
// sums), so both operands are widened to 16 bits and multiplied by vpmaddwd,
// whose pair sums (at most 2 x 255 x 128) are exact in 32 bits: the results
// are the same integers as every other tier's.
#include <immintrin.h>

#include <cstring>

#include "backends/cpu_avx512/kernels/gemm_tile_avx2.inc"

namespace dlk::cpu::kernels {
namespace {

constexpr int MR = 6, NR = 8;

// R rows and V halves (4 columns each) of the packed MR x NR k-quad panels. A
// widened B half holds 4 columns x 4 k as 16-bit lanes; a row's k-quad, broadcast
// and widened, lines up with each column's, so vpmaddwd leaves two partial sums
// per column (k 0-1 and 2-3) in adjacent 32-bit lanes, added after the k loop.
template <int R, int V>
void run_tile(int64_t kc, const uint8_t *__restrict a, const int8_t *__restrict b,
              const S32Tile &tile) {
  __m256i acc[R][V];
#pragma GCC unroll 6
  for (int i = 0; i < R; ++i)
    for (int v = 0; v < V; ++v) acc[i][v] = _mm256_setzero_si256();
  for (int64_t q = 0; q < kc / 4; ++q) {
    __m256i bv[V];
    for (int v = 0; v < V; ++v)
      bv[v] = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(b + 16 * v)));
    _mm_prefetch(reinterpret_cast<const char *>(b + 8 * NR * 4), _MM_HINT_T0);
#pragma GCC unroll 6
    for (int i = 0; i < R; ++i) {
      int32_t quad;
      std::memcpy(&quad, a + 4 * i, sizeof quad);
      const __m256i ai = _mm256_cvtepu8_epi16(_mm_set1_epi32(quad));
      for (int v = 0; v < V; ++v)
        acc[i][v] = _mm256_add_epi32(acc[i][v], _mm256_madd_epi16(ai, bv[v]));
    }
    a += MR * 4;
    b += NR * 4;
  }
  const __m256i mask = first_lanes(tile.cols);
  const __m256i comp =
      tile.a_zero ? _mm256_mullo_epi32(_mm256_set1_epi32(tile.a_zero), _mm256_maskload_epi32(tile.col_sums, mask))
                  : _mm256_setzero_si256();
#pragma GCC unroll 6
  for (int i = 0; i < R; ++i) {
    if (i >= tile.rows) break;
    // Pair sums: lanes (c0 c1 c4 c5 | c2 c3 c6 c7), then put in column order.
    const __m256i pairs = _mm256_hadd_epi32(acc[i][0], V == 2 ? acc[i][V - 1] : acc[i][0]);
    __m256i x = _mm256_sub_epi32(_mm256_permute4x64_epi64(pairs, 0xD8), comp);
    int32_t *c = tile.c + i * tile.ldc;
    if (tile.accumulate) x = _mm256_add_epi32(x, _mm256_maskload_epi32(c, mask));
    _mm256_maskstore_epi32(c, mask, x);
  }
}

}  // namespace

void gemm_s32_avx2_6x8(int64_t kc, const uint8_t *__restrict a, const int8_t *__restrict b,
                       const S32Tile &tile) {
  with_tile_shape<MR>(tile.rows, tile.cols, NR / 2, [&](auto r, auto v) {
    run_tile<decltype(r)::value, decltype(v)::value>(kc, a, b, tile);
  });
}

}  // namespace dlk::cpu::kernels
