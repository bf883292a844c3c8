// dlk's own kernels around cuDNN's convolution (conv_kernels.cu).
#pragma once

#include <cuda_runtime.h>

#include "core/op_args.hpp"

namespace dlk::cuda {

// dst = relu(x + bias_k) rounded once to dst's type (either part optional), as the CPU's forward
// epilogue: ReLU maps negatives to 0 and lets NaN through. x is `product` (f32, dst's shape and
// layout) where given, else dst itself.
cudaError_t launch_bias_relu(const core::Conv2dArgs &args, const float *product, cudaStream_t stream);

// diff_bias[k] = sum over n, oh, ow of diff_dst, in f32.
cudaError_t launch_diff_bias(const core::Conv2dArgs &args, cudaStream_t stream);

}  // namespace dlk::cuda

namespace dlk::cuda {

// dlk's im2col for image `image` of a float convolution, every group: NCHW writes
// col[g][c_g * kh * kw + r * kw + s][oy * ow + ox] (the GEMM's B, weights are
// A); NHWC writes col[g][oy * ow + ox][(r * kw + s) * c_g + c] (the GEMM's A,
// weights transposed are B). Padding reads as zero.
cudaError_t launch_im2col(const core::Conv2dArgs &args, int64_t image, void *col, cudaStream_t stream);

}  // namespace dlk::cuda
