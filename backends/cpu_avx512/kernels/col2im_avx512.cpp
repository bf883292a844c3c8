// The avx512 col2im tier: the loops of col2im_tier.inc with AVX-512 steps. The
// transpose is the packing kernel's 16 x 16 register transpose; a row adds in
// masked vectors, stride 2 spreading 8 inputs to the even lanes of a vector
// (the compiler would gather and scatter one element at a time).
#include <immintrin.h>

#include "backends/cpu_avx512/kernels/col2im_tier.inc"
#include "backends/cpu_avx512/kernels/gemm_pack_kernels.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"

struct Avx512Steps {
  static void transpose_block(const float *src, int64_t stride, int rows, int64_t count,
                              float *out) {
    pack_k_contiguous_avx512(reinterpret_cast<const uint8_t *>(src), stride * 4, rows, count * 4,
                             kBlock, 0, reinterpret_cast<uint8_t *>(out));
  }
  static void add_row(const float *in, int64_t n, float *out, int64_t stride) {
    if (stride == 1) {
      for (int64_t t = 0; t < n; t += 16) {
        const __mmask16 m = first_lanes(n - t);
        const __m512 sum = _mm512_add_ps(_mm512_maskz_loadu_ps(m, out + t), _mm512_maskz_loadu_ps(m, in + t));
        _mm512_mask_storeu_ps(out + t, m, sum);
      }
    } else if (stride == 2) {
      // Input e of 8 goes to lane 2e: the even lanes of 15 output elements.
      const __m512i spread = _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
      for (int64_t t = 0; t < n; t += 8) {
        const int64_t k = std::min<int64_t>(8, n - t);
        const __mmask16 m = static_cast<__mmask16>(0x5555u & ((1u << (2 * k)) - 1));
        const __m512 v = _mm512_maskz_permutexvar_ps(m, spread, _mm512_maskz_loadu_ps(first_lanes(k), in + t));
        float *o = out + 2 * t;
        _mm512_mask_storeu_ps(o, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, o), v));
      }
    } else {
      for (int64_t t = 0; t < n; ++t) out[t * stride] += in[t];
    }
  }
};

}  // namespace

void col2im_add_avx512(const ConvShape &s, const float *col, int64_t ld, bool tap_major, int64_t oy0, int64_t oy1, int64_t c0,
                       int64_t c1, const Col2imImage &image) {
  add<Avx512Steps>(s, col, ld, tap_major, oy0, oy1, c0, c1, image);
}

}  // namespace dlk::cpu::kernels
