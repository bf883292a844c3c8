// The avx512 tier of the unpacked f32 GEMM: gemm_unpacked_tier.inc on zmm
// vectors with masked loads and stores. Compiled with -mavx512f only; called
// only when the CPU has AVX-512 (gemm_unpacked.cpp).
#include <immintrin.h>

namespace dlk::cpu::kernels {
namespace {

struct Simd {
  using V = __m512;
  static constexpr int kWidth = 16;
  static __mmask16 mask(int count) {
    return count >= 16 ? __mmask16(0xFFFF) : count <= 0 ? __mmask16(0) : __mmask16((1u << count) - 1);
  }
  static V zero() { return _mm512_setzero_ps(); }
  static V set1(float x) { return _mm512_set1_ps(x); }
  static V load(const float *p) { return _mm512_loadu_ps(p); }
  static V load_n(const float *p, int count) { return _mm512_maskz_loadu_ps(mask(count), p); }
  static void store(float *p, V v) { _mm512_storeu_ps(p, v); }
  static void store_n(float *p, V v, int count) { _mm512_mask_storeu_ps(p, mask(count), v); }
  static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  // Masked form for the reason of half() below.
  static V max(V a, V b) { return _mm512_mask_max_ps(b, 0xFFFF, a, b); }
  // Not _mm512_reduce_add_ps nor _mm512_castps512_ps256: GCC 12 builds them on
  // an undefined register, which -Werror=uninitialized rejects; the masked
  // extract has a defined source.
  static __m256 half(V v, int which) {
    const __m512d d = _mm512_castps_pd(v);
    return _mm256_castpd_ps(which ? _mm512_mask_extractf64x4_pd(_mm256_setzero_pd(), 0xF, d, 1)
                                  : _mm512_mask_extractf64x4_pd(_mm256_setzero_pd(), 0xF, d, 0));
  }
  static float sum(V v) {
    const __m256 h = _mm256_add_ps(half(v, 0), half(v, 1));
    const __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
  }
};

}  // namespace
}  // namespace dlk::cpu::kernels

#include "backends/cpu_avx512/kernels/gemm_unpacked_tier.inc"

namespace dlk::cpu::kernels {

void gemm_f32_unpacked_avx512(const UnpackedF32Gemm &g, UnpackedForm form) { run_unpacked(g, form); }

}  // namespace dlk::cpu::kernels
