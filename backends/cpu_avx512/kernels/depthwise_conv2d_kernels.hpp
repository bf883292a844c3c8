// Direct depthwise convolution forward (groups == c, k a multiple of c: output
// channel k reads input channel k / (k / c) alone), f32, per CPU tier. im2col of one channel is a
// GEMM with a single row, which no blocking makes fast; these loops run over
// the dimension that is contiguous in memory instead (output columns of a
// plane in NCHW, channels in NHWC), each tier's vector registers holding the
// running sums of a block of outputs across all taps. Bias and ReLU are
// applied when a block's sums are stored.
#pragma once

#include "core/backend.hpp"

namespace dlk::cpu::kernels {

// weights_by_tap: NHWC only (NULL for NCHW), the weights as kh x kw x
// multiplier x c (tap major), so that a tap's weights for one multiplier index
// are contiguous over the input channels.
void depthwise_conv2d_forward_generic(const core::Conv2dArgs &args, const float *weights_by_tap,
                                      int threads);
void depthwise_conv2d_forward_avx2(const core::Conv2dArgs &args, const float *weights_by_tap,
                                   int threads);
void depthwise_conv2d_forward_avx512(const core::Conv2dArgs &args, const float *weights_by_tap,
                                     int threads);

}  // namespace dlk::cpu::kernels
