// The avx512 pooling tier: the loops of pool2d_tier.inc built for avx512, for the
// dtypes pool2d_tier_covers names.
#include "backends/cpu_avx512/kernels/pool2d_tier.inc"

namespace dlk::cpu::kernels {

void pool2d_forward_avx512(const core::Pool2dArgs &a, int threads) {
  // int8 NCHW runs along output rows of fewer than 64 outputs (ResNet-50's 56,
  // VGG-16's 112 in two runs of 64 and 48): built for AVX-512 the loops take 64
  // bytes a vector and leave such runs to their scalar remainder, 2x slower than
  // the AVX2 build's 32-byte vectors (measured, Zen 4), which therefore runs them.
  const bool int8 = a.desc.dtype == DLK_DTYPE_S8 || a.desc.dtype == DLK_DTYPE_U8;
  if (int8 && a.desc.format == DLK_FORMAT_NCHW) return pool2d_forward_avx2(a, threads);
  switch (a.desc.dtype) {
    case DLK_DTYPE_S8: return forward_int8<int8_t>(a, threads);
    case DLK_DTYPE_U8: return forward_int8<uint8_t>(a, threads);
    default:
      if (a.desc.format == DLK_FORMAT_NCHW) return pool2d_forward_nchw_f32_avx512(a, threads);
      return forward_float<FloatStorage<DLK_DTYPE_F32>>(a, threads);
  }
}

namespace {
// A plane whose argmaxes the gather did not all meet: zeroed and scattered.
void scatter_plane(const core::Pool2dArgs &a, int64_t plane) {
  const PoolShape s(a);
  float *acc = static_cast<float *>(a.diff_src) + plane * s.plane();
  std::fill(acc, acc + s.plane(), 0.0f);
  backward_plane_nchw<FloatStorage<DLK_DTYPE_F32>, 0>(
      s, static_cast<const float *>(a.diff_dst) + plane * s.out_plane(), a.argmax_in + plane * s.out_plane(),
      acc);
}
}  // namespace

// The scatter zeroes a plane, then adds into it: in L1d (32 KiB on Zen 4 and
// most x86 cores) that is faster than the gather (measured on VGG-16's 2x2/2
// pooling: 1.3-2x the gather's speed at 56x56 and below, 0.6x at 112x112 and up).
constexpr int64_t kScatterPlaneBytes = 32 * 1024;

void pool2d_backward_avx512(const core::Pool2dArgs &a, int threads, float *scratch) {
  using F32 = FloatStorage<DLK_DTYPE_F32>;
  if (a.desc.kind != DLK_POOL_MAX) return backward<F32>(a, threads, scratch);
  check_argmax(a, PoolShape(a), threads);
  const bool gather = a.desc.format == DLK_FORMAT_NCHW &&
                      a.desc.h * a.desc.w * static_cast<int64_t>(sizeof(float)) > kScatterPlaneBytes;
  if (gather && pool2d_max_backward_nchw_f32_avx512(a, threads, scatter_plane)) return;
  backward_checked<F32>(a, threads, scratch);
}

}  // namespace dlk::cpu::kernels
