// The avx512 pooling tier: the loops of pool2d_tier.inc built for avx512, for the
// dtypes pool2d_tier_covers names.
#include "backends/cpu_avx512/kernels/pool2d_tier.inc"

namespace dlk::cpu::kernels {

void pool2d_forward_avx512(const core::Pool2dArgs &a, int threads) {
  switch (a.desc.dtype) {
    case DLK_DTYPE_S8: return forward_int8_max<int8_t>(a, threads);
    case DLK_DTYPE_U8: return forward_int8_max<uint8_t>(a, threads);
    default:
      if (a.desc.format == DLK_FORMAT_NCHW) return pool2d_forward_nchw_f32_avx512(a, threads);
      return forward_float<FloatStorage<DLK_DTYPE_F32>>(a, threads);
  }
}

void pool2d_backward_avx512(const core::Pool2dArgs &a, int threads, float *scratch) {
  backward<FloatStorage<DLK_DTYPE_F32>>(a, threads, scratch);
}

}  // namespace dlk::cpu::kernels
