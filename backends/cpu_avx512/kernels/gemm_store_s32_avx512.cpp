// The integer GEMM's store on AVX-512 (kernels/gemm_store_kernels.hpp).
// Compiled with -mavx512f -mavx512bw -mavx512vl.
#include <algorithm>
#include <cmath>

#include "backends/cpu_avx512/kernels/gemm_store_kernels.hpp"
#include "backends/cpu_avx512/kernels/transpose16_avx512.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"
#include "backends/cpu_avx512/kernels/requantize_avx512.inc"

// What C holds. The loops are built once per kind, so that nothing in them
// tests the kind per vector.
enum class CKind { f32, bytes, s32 };

// The constants of requantizing to s8 or u8 C; below and above: the range
// less the zero point, relu_below: max(0, below).
struct RequantizeLanes {
  __m512 lo, hi, zero_f, below, above, relu_below;
  __m512i zero_i;
  RequantizeLanes(dlk_dtype type, int32_t zero_point)
      : RequantizeLanes(type == DLK_DTYPE_S8 ? -128 : 0, type == DLK_DTYPE_S8 ? 127 : 255,
                        zero_point) {}

 private:
  RequantizeLanes(int32_t min, int32_t max, int32_t zero_point)
      : lo(_mm512_set1_ps(static_cast<float>(min))),
        hi(_mm512_set1_ps(static_cast<float>(max))),
        zero_f(_mm512_set1_ps(static_cast<float>(zero_point))),
        below(_mm512_set1_ps(static_cast<float>(min - zero_point))),
        above(_mm512_set1_ps(static_cast<float>(max - zero_point))),
        relu_below(_mm512_set1_ps(static_cast<float>(std::max(0, min - zero_point)))),
        zero_i(_mm512_set1_epi32(zero_point)) {}
};

// ReLU by comparison, as `v < 0 ? 0 : v`: NaN and -0.0 pass.
inline __attribute__((always_inline)) __m512 relu16(__m512 v) {
  const __m512 zero = _mm512_setzero_ps();
  return _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ), zero);
}

// core::requantize on 16 lanes: round half to even, add the zero point,
// saturate; NaN becomes the zero point. The clamped values are whole and in
// range, so the truncating narrowing to bytes afterwards is exact.
inline __attribute__((always_inline)) __m512i requantize16(__m512 v, const RequantizeLanes &s) {
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  const __m512 r = _mm512_add_ps(
      _mm512_maskz_roundscale_ps(0xffff, v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
      s.zero_f);
  const __m512 clamped = _mm512_maskz_min_ps(0xffff, _mm512_maskz_max_ps(0xffff, r, s.lo), s.hi);
  return _mm512_mask_mov_epi32(_mm512_maskz_cvttps_epi32(0xffff, clamped), nan, s.zero_i);
}

template <CKind K>
constexpr int64_t kElemBytes = K == CKind::bytes ? 1 : 4;

// C's element at `offset` elements from the tile's corner (it may lie before
// the corner, where the lanes there are masked off).
template <CKind K>
void *element(const S32TileStore &t, int64_t offset) {
  return lane_address(static_cast<uint8_t *>(t.c), offset * kElemBytes<K>);
}

// C' of the scalar rule at the n lanes at `at`: C - zero point as f32 (f32 C: C).
template <CKind K>
__m512 c_values(const S32TileStore &t, const void *at, __mmask16 n) {
  if constexpr (K == CKind::f32) {
    return _mm512_maskz_loadu_ps(n, at);
  } else {
    const __m128i bytes = _mm_maskz_loadu_epi8(n, at);
    const __m512i wide = t.c_type == DLK_DTYPE_S8 ? _mm512_maskz_cvtepi8_epi32(0xffff, bytes)
                                                  : _mm512_maskz_cvtepu8_epi32(0xffff, bytes);
    return _mm512_maskz_cvtepi32_ps(0xffff,
                                    _mm512_sub_epi32(wide, _mm512_set1_epi32(t.zero_point)));
  }
}

// s32 C: C = acc or C + acc modulo 2^32 (beta 0 or 1), then ReLU; no scale or
// bias.
__attribute__((always_inline)) inline void store_s32_lanes(const S32TileStore &t, __m512i sums,
                                                           __mmask16 n, void *at) {
  if (t.beta != 0.0f) sums = _mm512_add_epi32(_mm512_maskz_loadu_epi32(n, at), sums);
  if (t.relu) sums = _mm512_max_epi32(sums, _mm512_setzero_si512());
  _mm512_mask_storeu_epi32(at, n, sums);
}

// f32, s8 or u8 C: the rule on 16 sums whose products are sums x scale,
// stored at `at` as f32 or requantized bytes (`lanes`: null for f32 C).
// Finite: no lane can be NaN (finite_rule), bytes take requantize16_finite.
template <CKind K, bool Finite>
__attribute__((always_inline)) inline void store_scaled_lanes(const S32TileStore &t,
                                                              const RequantizeLanes *lanes,
                                                              __m512i sums, __m512 scale,
                                                              const __m512 *bias, __mmask16 n,
                                                              void *at) {
  __m512 v = _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(0xffff, sums), scale);
  // fmaf(beta, C', product): one rounding, as the scalar rule.
  if (t.beta != 0.0f) v = _mm512_fmadd_ps(_mm512_set1_ps(t.beta), c_values<K>(t, at, n), v);
  if (bias) v = _mm512_add_ps(v, *bias);
  if constexpr (K == CKind::bytes && Finite) {
    const __m512i q = requantize16_finite(v, t.relu ? lanes->relu_below : lanes->below,
                                          lanes->above, lanes->zero_i);
    _mm512_mask_cvtepi32_storeu_epi8(at, n, q);
    return;
  }
  if (t.relu) v = relu16(v);
  if constexpr (K == CKind::f32)
    _mm512_mask_storeu_ps(at, n, v);
  else
    _mm512_mask_cvtepi32_storeu_epi8(at, n, requantize16(v, *lanes));
}

// C row-major: 16 columns of a row a step.
template <CKind K, bool Finite>
void store_rows(const S32TileStore &store, const RequantizeLanes *lanes) {
  // A copy the stores into C cannot alias: its fields stay in registers.
  const S32TileStore t = store;
  for (int64_t i = 0; i < t.rows; ++i) {
    for (int64_t j = 0; j < t.cols; j += 16) {
      const __mmask16 n = first_lanes(t.cols - j);
      const __m512i sums = _mm512_maskz_loadu_epi32(n, t.acc + i * t.ld + j);
      void *at = element<K>(t, i * t.rs_c + j);
      if constexpr (K == CKind::s32) {
        store_s32_lanes(t, sums, n, at);
      } else {
        const __m512 scale = t.column_multipliers
                                 ? _mm512_maskz_loadu_ps(n, t.column_multipliers + j)
                                 : _mm512_set1_ps(t.row_multipliers ? t.row_multipliers[i]
                                                                    : t.multiplier);
        __m512 bias = _mm512_setzero_ps();
        if (t.row_bias) bias = _mm512_set1_ps(t.row_bias[i]);
        if (t.col_bias) bias = _mm512_maskz_loadu_ps(n, t.col_bias + j);
        store_scaled_lanes<K, Finite>(t, lanes, sums, scale,
                                      t.row_bias || t.col_bias ? &bias : nullptr, n, at);
      }
    }
  }
}

// C column-major: a 16 x 16 block of the accumulator turned so that each
// register holds 16 rows of one column, C's contiguous run. The blocks start
// where column 0's rows start a cache line (the first block is cut short), so
// that where the column stride is a multiple of 64 bytes every whole block is
// one aligned line: row blocks of 14-row tiles otherwise wrote each line in two
// stores (half of res2a_1x1b's NCHW int8 time went to these stores).
template <CKind K, bool Finite>
void store_columns(const S32TileStore &store, const RequantizeLanes *lanes) {
  // A copy the stores into C cannot alias: its fields stay in registers.
  const S32TileStore t = store;
  const int64_t lead =
      static_cast<int64_t>(reinterpret_cast<uintptr_t>(t.c) % (16 * kElemBytes<K>)) /
      kElemBytes<K>;
  for (int64_t i0 = -lead; i0 < t.rows; i0 += 16) {
    // Rows i0 + r for r in [r0, r1) exist.
    const int64_t r0 = std::max<int64_t>(0, -i0), r1 = std::min<int64_t>(16, t.rows - i0);
    const __mmask16 n = lane_range(r0, r1);
    __m512 row_bias = _mm512_setzero_ps();
    if (K != CKind::s32 && t.row_bias)
      row_bias = _mm512_maskz_loadu_ps(n, lane_address(t.row_bias, i0));
    for (int64_t j0 = 0; j0 < t.cols; j0 += 16) {
      const int64_t cols = std::min<int64_t>(16, t.cols - j0);
      __m512 block[16];
      for (int r = 0; r < 16; ++r)
        block[r] = r >= r0 && r < r1 ? _mm512_castsi512_ps(_mm512_maskz_loadu_epi32(
                                          first_lanes(cols), t.acc + (i0 + r) * t.ld + j0))
                                    : _mm512_setzero_ps();
      transpose16(block);
      for (int64_t jj = 0; jj < cols; ++jj) {
        const int64_t j = j0 + jj;
        const __m512i sums = _mm512_castps_si512(block[jj]);
        void *at = element<K>(t, i0 + j * t.cs_c);
        if constexpr (K == CKind::s32) {
          store_s32_lanes(t, sums, n, at);
        } else {
          const __m512 scale = _mm512_set1_ps(t.column_multipliers ? t.column_multipliers[j]
                                                                   : t.multiplier);
          __m512 bias = row_bias;
          if (t.col_bias) bias = _mm512_set1_ps(t.col_bias[j]);
          store_scaled_lanes<K, Finite>(t, lanes, sums, scale,
                                        t.row_bias || t.col_bias ? &bias : nullptr, n, at);
        }
      }
    }
  }
}

template <CKind K, bool Finite = false>
void store_tile(const S32TileStore &t, const RequantizeLanes *lanes) {
  return t.cs_c == 1 ? store_rows<K, Finite>(t, lanes) : store_columns<K, Finite>(t, lanes);
}

// Whether `count` floats at p are all finite (none NaN or infinite).
bool all_finite(const float *p, int64_t count) {
  for (int64_t j = 0; j < count; j += 16) {
    const __mmask16 n = first_lanes(count - j);
    const __m512 x = _mm512_maskz_loadu_ps(n, p + j);
    // x - x: 0 where x is finite, NaN where it is NaN or infinite.
    if (_mm512_mask_cmp_ps_mask(n, _mm512_sub_ps(x, x), _mm512_setzero_ps(), _CMP_NEQ_UQ) != 0)
      return false;
  }
  return true;
}

// Whether no lane of t's rule can be NaN: beta 0, and the multipliers and
// biases finite (a sum is finite, its product with a finite multiplier at
// worst infinite, and an infinite plus a finite bias not NaN).
bool finite_rule(const S32TileStore &t) {
  if (t.beta != 0.0f) return false;
  const bool multipliers =
      t.column_multipliers ? all_finite(t.column_multipliers, t.cols)
      : t.row_multipliers  ? all_finite(t.row_multipliers, t.rows)
                           : std::isfinite(t.multiplier);
  return multipliers && (!t.col_bias || all_finite(t.col_bias, t.cols)) &&
         (!t.row_bias || all_finite(t.row_bias, t.rows));
}

}  // namespace

void gemm_store_s32_avx512(const S32TileStore &t) {
  switch (t.c_type) {
    case DLK_DTYPE_S32: return store_tile<CKind::s32>(t, nullptr);
    case DLK_DTYPE_F32: return store_tile<CKind::f32>(t, nullptr);
    default: {
      const RequantizeLanes lanes(t.c_type, t.zero_point);
      return finite_rule(t) ? store_tile<CKind::bytes, true>(t, &lanes)
                            : store_tile<CKind::bytes>(t, &lanes);
    }
  }
}

}  // namespace dlk::cpu::kernels
