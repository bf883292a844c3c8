// Compiled with -mavx512f -mavx512vnni only (EVEX vpdpbusd); called only when
// the CPU has AVX512_VNNI (gemm_kernels.cpp).
#include <immintrin.h>

#include <cstring>

#include "backends/cpu_avx512/kernels/gemm_microkernel.hpp"

namespace dlk::cpu::kernels {
namespace {

constexpr int MR = 14, NR = 32;

__mmask16 column_mask(int cols) {
  return cols >= 16 ? __mmask16(0xFFFF) : cols <= 0 ? __mmask16(0) : __mmask16((1u << cols) - 1);
}

}  // namespace

void gemm_s32_avx512vnni_14x32(int64_t kc, const uint8_t *__restrict a,
                               const int8_t *__restrict b, const S32Tile &tile) {
  for (int i = 0; i < tile.rows; ++i) {
    _mm_prefetch(reinterpret_cast<const char *>(tile.c + i * tile.ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char *>(tile.c + i * tile.ldc + NR - 1), _MM_HINT_T0);
  }
  __m512i acc[MR][2];
#pragma GCC unroll 14
  for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_si512();
  for (int64_t q = 0; q < kc / 4; ++q) {
    const __m512i b0 = _mm512_loadu_si512(b);
    const __m512i b1 = _mm512_loadu_si512(b + 64);
    _mm_prefetch(reinterpret_cast<const char *>(b + 8 * NR * 4), _MM_HINT_T0);
#pragma GCC unroll 14
    for (int i = 0; i < MR; ++i) {
      int32_t quad;
      std::memcpy(&quad, a + 4 * i, sizeof quad);
      const __m512i ai = _mm512_set1_epi32(quad);
      acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], ai, b0);
      acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], ai, b1);
    }
    a += MR * 4;
    b += NR * 4;
  }
  const __mmask16 m0 = column_mask(tile.cols), m1 = column_mask(tile.cols - 16);
  const __m512i zero = _mm512_set1_epi32(tile.a_zero);
  const __m512i comp0 = _mm512_mullo_epi32(zero, _mm512_maskz_loadu_epi32(m0, tile.col_sums));
  const __m512i comp1 =
      _mm512_mullo_epi32(zero, _mm512_maskz_loadu_epi32(m1, tile.col_sums + 16));
#pragma GCC unroll 14
  for (int i = 0; i < MR; ++i) {
    if (i >= tile.rows) break;
    int32_t *c = tile.c + i * tile.ldc;
    __m512i v0 = _mm512_sub_epi32(acc[i][0], comp0), v1 = _mm512_sub_epi32(acc[i][1], comp1);
    if (tile.accumulate) {
      v0 = _mm512_add_epi32(v0, _mm512_maskz_loadu_epi32(m0, c));
      v1 = _mm512_add_epi32(v1, _mm512_maskz_loadu_epi32(m1, c + 16));
    }
    _mm512_mask_storeu_epi32(c, m0, v0);
    _mm512_mask_storeu_epi32(c + 16, m1, v1);
  }
}

}  // namespace dlk::cpu::kernels
