// The integer store rule of dlk.h (store_s32_tile, gemm_epilogue.hpp) on 16
// lanes, shared by the kernels that turn s32 sums into f32, s8 or u8 dst (the
// GEMM's tile store, the wide-row int8 convolution). Each step rounds as the
// scalar rule does, so every tier stays bit-exact. Include only from files
// built with -mavx512f -mavx512bw -mavx512vl.
#pragma once

#include "common/immintrin.hpp"
#include "dlk/dlk.h"

namespace dlk::cpu::kernels {

// The constants of one store into dst of `type` (f32, s8 or u8).
struct S32StoreLanes {
  __m512 lo, hi, zero_f;
  __m512i zero_i;
  bool f32;
  explicit S32StoreLanes(dlk_dtype type, int32_t zero_point)
      : lo(_mm512_set1_ps(type == DLK_DTYPE_S8 ? -128.0f : 0.0f)),
        hi(_mm512_set1_ps(type == DLK_DTYPE_S8 ? 127.0f : 255.0f)),
        zero_f(_mm512_set1_ps(static_cast<float>(zero_point))),
        zero_i(_mm512_set1_epi32(zero_point)),
        f32(type == DLK_DTYPE_F32) {}
};

// ReLU by comparison, as `v < 0 ? 0 : v`: NaN and -0.0 pass.
inline __attribute__((always_inline)) __m512 relu16(__m512 v) {
  const __m512 zero = _mm512_setzero_ps();
  return _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ), zero);
}

// core::requantize on 16 lanes: round half to even, add the zero point,
// saturate; NaN becomes the zero point. The clamped values are whole and in
// range, so the truncating narrowing to bytes afterwards is exact.
inline __attribute__((always_inline)) __m512i requantize16(__m512 v, const S32StoreLanes &s) {
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  const __m512 r = _mm512_add_ps(
      _mm512_maskz_roundscale_ps(0xffff, v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
      s.zero_f);
  const __m512 clamped = _mm512_maskz_min_ps(0xffff, _mm512_maskz_max_ps(0xffff, r, s.lo), s.hi);
  return _mm512_mask_mov_epi32(_mm512_maskz_cvttps_epi32(0xffff, clamped), nan, s.zero_i);
}

// Stores the n first lanes of v (f32 after the epilogue) at `out`, f32 or
// requantized bytes.
inline __attribute__((always_inline)) void store16(__m512 v, __mmask16 n, const S32StoreLanes &s,
                                                   void *out) {
  if (s.f32)
    _mm512_mask_storeu_ps(out, n, v);
  else
    _mm512_mask_cvtepi32_storeu_epi8(out, n, requantize16(v, s));
}

}  // namespace dlk::cpu::kernels
