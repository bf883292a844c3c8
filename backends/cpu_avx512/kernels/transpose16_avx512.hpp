// A 16 x 16 transpose of f32 in AVX-512 registers, shared by the kernels that
// turn planes into lanes (pooling's planes in the lanes, the direct backward
// kernels' pixel-major diff_dst). Include only from files built with
// -mavx512f.
#pragma once

#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {

// r[k] holds elements 0..15 of row k; afterwards r[j] holds element j of rows
// 0..15 (unpacks within 128-bit lanes, then 128-bit lane shuffles).
inline __attribute__((always_inline)) void transpose16(__m512 r[16]) {
  __m512 t[16], u[16];
  for (int k = 0; k < 16; k += 2) {
    t[k] = _mm512_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm512_unpackhi_ps(r[k], r[k + 1]);
  }
  // u[4q + j]: elements j, j + 4, j + 8, j + 12 (one per 128-bit lane) of rows 4q .. 4q + 3.
  for (int q = 0; q < 16; q += 4) {
    const auto lo = [](__m512 a, __m512 b) {
      return _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
    };
    const auto hi = [](__m512 a, __m512 b) {
      return _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
    };
    u[q] = lo(t[q], t[q + 2]);
    u[q + 1] = hi(t[q], t[q + 2]);
    u[q + 2] = lo(t[q + 1], t[q + 3]);
    u[q + 3] = hi(t[q + 1], t[q + 3]);
  }
  for (int j = 0; j < 4; ++j) {
    const __m512 a = _mm512_shuffle_f32x4(u[j], u[j + 4], 0x44), b = _mm512_shuffle_f32x4(u[j], u[j + 4], 0xee);
    const __m512 c = _mm512_shuffle_f32x4(u[j + 8], u[j + 12], 0x44),
                 e = _mm512_shuffle_f32x4(u[j + 8], u[j + 12], 0xee);
    r[j] = _mm512_shuffle_f32x4(a, c, 0x88);
    r[j + 4] = _mm512_shuffle_f32x4(a, c, 0xdd);
    r[j + 8] = _mm512_shuffle_f32x4(b, e, 0x88);
    r[j + 12] = _mm512_shuffle_f32x4(b, e, 0xdd);
  }
}

}  // namespace dlk::cpu::kernels
