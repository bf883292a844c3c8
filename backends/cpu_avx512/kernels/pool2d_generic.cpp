// The generic pooling tier: every dtype, built for the x86-64 baseline.
#include "backends/cpu_avx512/kernels/pool2d_tier.inc"

namespace dlk::cpu::kernels {

bool pool2d_tier_covers(const core::Pool2dArgs &a, bool backward) {
  if (a.desc.dtype == DLK_DTYPE_F32) return true;
  const bool int8 = a.desc.dtype == DLK_DTYPE_S8 || a.desc.dtype == DLK_DTYPE_U8;
  return !backward && int8 && a.desc.kind == DLK_POOL_MAX;
}

void pool2d_forward_generic(const core::Pool2dArgs &a, int threads) {
  switch (a.desc.dtype) {
    case DLK_DTYPE_S8: return forward_int8<int8_t>(a, threads);
    case DLK_DTYPE_U8: return forward_int8<uint8_t>(a, threads);
    default:
      with_float_storage(a.desc.dtype, [&](auto storage) {
        forward_float<decltype(storage)>(a, threads);
      });
  }
}

int64_t pool2d_backward_scratch_floats(const core::Pool2dArgs &a) {
  if (a.desc.dtype == DLK_DTYPE_F32) return 0;
  const int64_t plane = a.desc.h * a.desc.w;
  return a.desc.format == DLK_FORMAT_NHWC ? plane * kLanes : plane;
}

void pool2d_backward_generic(const core::Pool2dArgs &a, int threads, float *scratch) {
  with_float_storage(a.desc.dtype, [&](auto storage) {
    backward<decltype(storage)>(a, threads, scratch);
  });
}

}  // namespace dlk::cpu::kernels
