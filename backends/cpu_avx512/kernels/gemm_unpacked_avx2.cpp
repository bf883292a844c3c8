// The avx2 tier of the unpacked f32 GEMM: gemm_unpacked_tier.inc on ymm vectors
// with vmaskmovps for the edges. Compiled with -mavx2 -mfma; called only when
// the CPU has both (gemm_unpacked.cpp).
#include <immintrin.h>

namespace dlk::cpu::kernels {
namespace {

struct Simd {
  using V = __m256;
  static constexpr int kWidth = 8;
  static __m256i mask(int count) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static V zero() { return _mm256_setzero_ps(); }
  static V set1(float x) { return _mm256_set1_ps(x); }
  static V load(const float *p) { return _mm256_loadu_ps(p); }
  static V load_n(const float *p, int count) { return _mm256_maskload_ps(p, mask(count)); }
  static void store(float *p, V v) { _mm256_storeu_ps(p, v); }
  static void store_n(float *p, V v, int count) { _mm256_maskstore_ps(p, mask(count), v); }
  static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static float sum(V v) {
    const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
  }
};

}  // namespace
}  // namespace dlk::cpu::kernels

#include "backends/cpu_avx512/kernels/gemm_unpacked_tier.inc"

namespace dlk::cpu::kernels {

void gemm_f32_unpacked_avx2(const UnpackedF32Gemm &g, UnpackedForm form) { run_unpacked(g, form); }

}  // namespace dlk::cpu::kernels
