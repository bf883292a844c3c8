// Compiled with -mavx512f -mavx512bf16 only; called only when the CPU has
// AVX512_BF16 (gemm_kernels.cpp).
#include <immintrin.h>

#include <cstring>

#include "backends/cpu_avx512/kernels/f32_tile_store_avx512.inc"

namespace dlk::cpu::kernels {
namespace {

constexpr int MR = 14, NR = 32;

}  // namespace

void gemm_bf16_avx512bf16_14x32(int64_t kc, const uint16_t *__restrict a,
                                const uint16_t *__restrict b, const F32Tile &tile) {
  for (int i = 0; i < tile.rows; ++i) {
    _mm_prefetch(reinterpret_cast<const char *>(tile.c + i * tile.ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char *>(tile.c + i * tile.ldc + NR - 1), _MM_HINT_T0);
  }
  __m512 acc[MR][2];
#pragma GCC unroll 14
  for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int64_t q = 0; q < kc / 2; ++q) {
    const __m512bh b0 = (__m512bh)_mm512_loadu_si512(b);
    const __m512bh b1 = (__m512bh)_mm512_loadu_si512(b + 32);
    _mm_prefetch(reinterpret_cast<const char *>(b + 8 * NR * 2), _MM_HINT_T0);
#pragma GCC unroll 14
    for (int i = 0; i < MR; ++i) {
      int32_t pair;
      std::memcpy(&pair, a + 2 * i, sizeof pair);
      const __m512bh ai = (__m512bh)_mm512_set1_epi32(pair);
      acc[i][0] = _mm512_dpbf16_ps(acc[i][0], ai, b0);
      acc[i][1] = _mm512_dpbf16_ps(acc[i][1], ai, b1);
    }
    a += MR * 2;
    b += NR * 2;
  }
  store_tile_avx512<MR>(acc, tile);
}

}  // namespace dlk::cpu::kernels
