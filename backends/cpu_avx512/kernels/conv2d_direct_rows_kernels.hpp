// Direct convolution along rows for few channels, f32 NCHW, one group, stride
// 1: the 16 lanes of a vector are 16 columns of an output row. The image is
// copied into zero-padded planes, so that every tap of every output reads
// inside them, and a block of up to 8 output channels x 2 rows x 16 columns
// keeps its sums in registers over all taps: per tap one load of an input row
// per output row and a broadcast of the tap's weight per channel.
//
// - Forward: where the output channels are too few to fill the lanes of the
//   few-channel kernel (conv2d_direct_kernels.hpp) better than the columns
//   fill them: LeNet-5 conv1 (6 channels of 28 columns: 12 vectors a tap and
//   row against 28), 0.8 ms a call there (Intel Xeon model 207, 1 thread).
// - Backward data: diff_src is the convolution of diff_dst, zero-padded by
//   (kh - 1) x dilation - pad, with the weights turned around. The GEMM
//   lowering (col = weights^T x diff_dst per image, then col2im) has only k
//   for its depth: LeNet-5 conv2 (k = 16) ran at 3-15 GFLOP/s.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/cpu_avx512/kernels/conv2d_direct_kernels.hpp"
#include "backends/cpu_avx512/scratch.hpp"
#include "core/backend.hpp"

namespace dlk::cpu::kernels {

// The layout of the kernels' scratch: the weights turned into blocks of
// channels, tap-major, then one padded image (forward: src; backward data:
// diff_dst) per thread.
struct DirectRowsPlan {
  DirectRowsPlan(const core::Conv2dArgs &args, int threads, bool backward_data);
  int team = 1;  // threads, each taking its share of the images
  int64_t hp = 0, wp = 0, padded_floats = 0, weights_floats = 0;
  size_t bytes = 0;
};

// Shared by both rules: f32 NCHW, one group, stride 1, a kernel larger than
// 1x1, sizes below kMaxDirectPaddedFloats (validation bounds them only
// through the output size).
inline bool conv2d_direct_rows_shape(const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t limit = kMaxDirectPaddedFloats;
  return d.src_type == DLK_DTYPE_F32 && d.format == DLK_FORMAT_NCHW && d.groups == 1 &&
         d.stride_h == 1 && d.stride_w == 1 && d.kh * d.kw > 1 && d.kh < limit &&
         d.kw < limit && d.dilation_h < limit && d.dilation_w < limit && d.pad_h < limit &&
         d.pad_w < limit && d.h < limit && d.w < limit;
}

// Forward: also fewer than 16 output channels (16 and more go to the wide-row
// kernel), a padded src of at most kMaxDirectPaddedFloats, and fewer vectors a
// tap (k x the 16-column pieces of a row, per row) than the few-channel
// kernel's (a vector per output pixel): k x ceil(ow / 16) < ow.
inline bool conv2d_direct_rows_forward_applies(const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &d = a.desc;
  if (!conv2d_direct_rows_shape(a) || d.k >= 16) return false;
  return d.c * (d.h + 2 * d.pad_h) * (d.w + 2 * d.pad_w) <= kMaxDirectPaddedFloats &&
         d.k * ((a.ow + 15) / 16) < a.ow;
}

// NHWC with one input channel is NCHW but for dst (and its ohwi weights are
// oihw): the forward runs on the NCHW twin of `a` where that applies, into an
// NCHW dst that is then turned into NHWC (LeNet-5's conv1).
inline bool conv2d_direct_rows_forward_nhwc_applies(const core::Conv2dArgs &a) {
  return a.desc.format == DLK_FORMAT_NHWC && a.desc.c == 1 &&
         conv2d_direct_rows_forward_applies(nchw_twin(a));
}

// Backward data: at most 16 input and 16 output channels (more make the GEMM
// deep enough), padding at most (kernel - 1) x dilation on each side, a padded
// diff_dst of at most kMaxDirectPaddedFloats.
inline bool conv2d_direct_backward_data_applies(const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &d = a.desc;
  if (!conv2d_direct_rows_shape(a) || d.c > 16 || d.k > 16) return false;
  const int64_t reach_h = (d.kh - 1) * d.dilation_h, reach_w = (d.kw - 1) * d.dilation_w;
  return d.pad_h <= reach_h && d.pad_w <= reach_w &&
         d.k * (d.h + reach_h) * (d.w + reach_w) <= kMaxDirectPaddedFloats;
}

// dst = conv(src, weights) + bias, ReLU where asked; `scratch` holds
// plan.bytes of DirectRowsPlan(args, threads, false).
void conv2d_direct_rows_forward_avx512(const core::Conv2dArgs &args, const DirectRowsPlan &plan,
                                       void *scratch);
// diff_src = the gradient of the forward with respect to src; `scratch` holds
// plan.bytes of DirectRowsPlan(args, threads, true).
void conv2d_direct_backward_data_avx512(const core::Conv2dArgs &args, const DirectRowsPlan &plan,
                                        void *scratch);

}  // namespace dlk::cpu::kernels
