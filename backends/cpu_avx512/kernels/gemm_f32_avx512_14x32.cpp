// Compiled with -mavx512f only; called only when the CPU has AVX-512 (gemm_kernels.cpp).
#include <immintrin.h>

#include "backends/cpu_avx512/kernels/f32_tile_store_avx512.inc"

namespace dlk::cpu::kernels {
namespace {

constexpr int MR = 14, NR = 32;

}  // namespace

void gemm_f32_avx512_14x32(int64_t kc, const float *__restrict a, const float *__restrict b,
                           const F32Tile &tile) {
  // The C tile is read or written only after the k loop: fetch its lines now so
  // that the loop hides their latency.
  for (int i = 0; i < tile.rows; ++i) {
    _mm_prefetch(reinterpret_cast<const char *>(tile.c + i * tile.ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char *>(tile.c + i * tile.ldc + NR - 1), _MM_HINT_T0);
  }
  __m512 acc[MR][2];
#pragma GCC unroll 14
  for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 b0 = _mm512_loadu_ps(b);
    const __m512 b1 = _mm512_loadu_ps(b + 16);
    // The B micro-panel streams from L2: fetch the line eight k steps ahead.
    _mm_prefetch(reinterpret_cast<const char *>(b + 8 * NR), _MM_HINT_T0);
#pragma GCC unroll 14
    for (int i = 0; i < MR; ++i) {
      const __m512 ai = _mm512_set1_ps(a[i]);
      acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
    }
    a += MR;
    b += NR;
  }
  store_tile_avx512<MR>(acc, tile);
}

}  // namespace dlk::cpu::kernels
