// Direct convolution backward weights for few output channels (at most 16),
// f32 NCHW, one group: the 16 lanes of a vector are the output channels, as in
// the forward's direct kernel (conv2d_direct_kernels.hpp). diff_dst is turned
// pixel-major per image (a vector of the channels per pixel), and each tap's
// gradient, a vector over the channels, sums input value (broadcast) x that
// vector over the pixels in a register. The GEMM lowering of such layers
// (LeNet-5's conv1, 6 channels, and conv2, 16 channels of 6 x 5 x 5 taps) packs
// an im2col^T element for every kg multiply-adds, and its C has kg rows of a
// 14-row tile: 2-8 GFLOP/s on Intel Xeon model 207, 1 thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/cpu_avx512/kernels/conv2d_direct_kernels.hpp"
#include "backends/cpu_avx512/scratch.hpp"
#include "core/backend.hpp"

namespace dlk::cpu::kernels {

// The layout of the kernel's scratch: per thread the taps' sums (taps x 16 f32
// and 16 for the bias), one image's diff_dst pixel-major (pixels x 16) and,
// where there is padding, one zero-padded image (c x hp x wp).
struct DirectBackwardWeightsPlan {
  DirectBackwardWeightsPlan(const core::Conv2dArgs &args, int threads);
  int team = 1;  // threads, each summing its share of the images
  int64_t hp = 0, wp = 0, padded_floats = 0;
  int64_t sums_floats = 0, pixel_major_floats = 0;
  size_t thread_bytes = 0, bytes = 0;
};

// Pixels of one image whose pixel-major diff_dst a thread holds (1 MiB).
constexpr int64_t kMaxDirectBackwardPixels = int64_t{1} << 14;

// The rule (f32 NCHW on the AVX-512 tier): one group, a kernel larger than
// 1x1, 4 to 16 output channels (fewer leave most lanes idle), at most
// kMaxDirectTaps taps, at most kMaxDirectBackwardPixels output pixels, a
// padded image of at most kMaxDirectPaddedFloats; any stride and dilation.
inline bool conv2d_direct_backward_weights_applies(const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &d = a.desc;
  if (d.src_type != DLK_DTYPE_F32 || d.format != DLK_FORMAT_NCHW || d.groups != 1 ||
      d.kh * d.kw <= 1 || d.k < 4 || d.k > 16 || d.c * d.kh * d.kw > kMaxDirectTaps ||
      a.oh * a.ow > kMaxDirectBackwardPixels)
    return false;
  if (d.pad_h == 0 && d.pad_w == 0) return true;
  const int64_t limit = kMaxDirectPaddedFloats;  // (padding is bounded only by the output)
  return d.pad_h < limit && d.pad_w < limit && d.h < limit && d.w < limit &&
         d.c * (d.h + 2 * d.pad_h) * (d.w + 2 * d.pad_w) <= limit;
}

// diff_weights = sum over images and pixels of src x diff_dst, diff_bias (if
// not null) the sum of diff_dst; images on plan.team threads; `scratch` holds
// plan.bytes.
void conv2d_direct_backward_weights_avx512(const core::Conv2dArgs &args,
                                           const DirectBackwardWeightsPlan &plan, void *scratch);

}  // namespace dlk::cpu::kernels
