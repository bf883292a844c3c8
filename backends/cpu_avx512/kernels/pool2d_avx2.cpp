// The avx2 pooling tier: the loops of pool2d_tier.inc built for avx2, for the
// dtypes pool2d_tier_covers names.
#include "backends/cpu_avx512/kernels/pool2d_tier.inc"

namespace dlk::cpu::kernels {

void pool2d_forward_avx2(const core::Pool2dArgs &a, int threads) {
  switch (a.desc.dtype) {
    case DLK_DTYPE_S8: return forward_int8<int8_t>(a, threads);
    case DLK_DTYPE_U8: return forward_int8<uint8_t>(a, threads);
    default: return forward_float<FloatStorage<DLK_DTYPE_F32>>(a, threads);
  }
}

void pool2d_backward_avx2(const core::Pool2dArgs &a, int threads, float *scratch) {
  backward<FloatStorage<DLK_DTYPE_F32>>(a, threads, scratch);
}

}  // namespace dlk::cpu::kernels
