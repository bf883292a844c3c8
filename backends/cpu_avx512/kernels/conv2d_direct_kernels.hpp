// Direct convolution forward for few output channels per group (at most 16),
// f32 NCHW without padding: the 16 lanes of a vector are the output channels,
// so each tap is one vector of weights times a broadcast input value per
// output pixel. The GEMM lowering of such layers (LeNet-5 conv2: 16 channels,
// 6 x 5 x 5 taps, 10 x 10 pixels) packs an im2col element for every 16
// multiply-adds, and packing outweighed the products.
#pragma once

#include <cstdint>

#include "core/backend.hpp"

namespace dlk::cpu::kernels {

// The shapes conv2d_direct_few_channels_avx512 takes: f32 NCHW, no padding,
// a kernel larger than 1x1, at most kMaxDirectTaps taps (c / groups x kh x
// kw), and 8 to 16 output channels per group, or 4 to 16 with one input
// channel per group (fewer would leave most lanes idle; with one input
// channel the GEMM's k is only kh x kw).
constexpr int64_t kMaxDirectTaps = 1024;
inline bool conv2d_direct_few_channels_applies(const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t kg = a.k_per_group, cg = a.c_per_group;
  return d.src_type == DLK_DTYPE_F32 && d.format == DLK_FORMAT_NCHW && d.pad_h == 0 &&
         d.pad_w == 0 && d.kh * d.kw > 1 && cg * d.kh * d.kw <= kMaxDirectTaps && kg <= 16 &&
         (kg >= 8 || (cg == 1 && kg >= 4));
}
// dst = conv(src, weights) + bias, ReLU where asked, images on up to `threads`
// threads.
void conv2d_direct_few_channels_avx512(const core::Conv2dArgs &args, int threads);

}  // namespace dlk::cpu::kernels
