// The generic pooling tier: every dtype, built for the x86-64 baseline.
#include "backends/cpu_avx512/kernels/pool2d_tier.inc"

namespace dlk::cpu::kernels {

bool pool2d_tier_covers(const core::Pool2dArgs &a, bool backward) {
  if (a.desc.dtype == DLK_DTYPE_F32) return true;
  const bool int8 = a.desc.dtype == DLK_DTYPE_S8 || a.desc.dtype == DLK_DTYPE_U8;
  return !backward && int8;
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

namespace {
int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// Window starts at o * stride - pad and holds kernel elements.
OutputRange outputs_holding(int64_t i, int64_t kernel, int64_t stride, int64_t pad, int64_t outputs) {
  return {std::max<int64_t>(0, ceil_div(i + pad - kernel + 1, stride)),
          std::min(outputs - 1, (i + pad) / stride)};
}
}  // namespace

OutputRange outputs_holding_row(const core::Pool2dArgs &a, int64_t y) {
  return outputs_holding(y, a.desc.kh, a.desc.stride_h, a.desc.pad_h, a.oh);
}
OutputRange outputs_holding_column(const core::Pool2dArgs &a, int64_t x) {
  return outputs_holding(x, a.desc.kw, a.desc.stride_w, a.desc.pad_w, a.ow);
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
