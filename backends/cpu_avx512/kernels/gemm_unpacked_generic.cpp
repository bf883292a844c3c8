// The scalar tier of the unpacked f32 GEMM: gemm_unpacked_tier.inc on SSE
// vectors of the x86-64 baseline (no FMA: a multiply and an add, as the scalar
// micro-kernel), edges through a small copy.
#include <emmintrin.h>

#include <algorithm>
#include <cstring>

namespace dlk::cpu::kernels {
namespace {

struct Simd {
  using V = __m128;
  static constexpr int kWidth = 4;
  static size_t bytes(int count) { return sizeof(float) * static_cast<size_t>(std::clamp(count, 0, 4)); }
  static V zero() { return _mm_setzero_ps(); }
  static V set1(float x) { return _mm_set1_ps(x); }
  static V load(const float *p) { return _mm_loadu_ps(p); }
  static V load_n(const float *p, int count) {
    float t[4] = {};
    std::memcpy(t, p, bytes(count));
    return _mm_loadu_ps(t);
  }
  static void store(float *p, V v) { _mm_storeu_ps(p, v); }
  static void store_n(float *p, V v, int count) {
    float t[4];
    _mm_storeu_ps(t, v);
    std::memcpy(p, t, bytes(count));
  }
  static V fmadd(V a, V b, V c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
  static V mul(V a, V b) { return _mm_mul_ps(a, b); }
  static V add(V a, V b) { return _mm_add_ps(a, b); }
  static V max(V a, V b) { return _mm_max_ps(a, b); }
  static float sum(V v) {
    const V t = _mm_add_ps(v, _mm_movehl_ps(v, v));
    return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
  }
};

}  // namespace
}  // namespace dlk::cpu::kernels

#include "backends/cpu_avx512/kernels/gemm_unpacked_tier.inc"

namespace dlk::cpu::kernels {

void gemm_f32_unpacked_generic(const UnpackedF32Gemm &g, UnpackedForm form) { run_unpacked(g, form); }

}  // namespace dlk::cpu::kernels
