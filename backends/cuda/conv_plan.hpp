// How a dlk convolution maps onto cuDNN's legacy convolution API (conv_cudnn.cpp)
// and what keys its cached algorithm search: pure host logic, unit-tested without
// a GPU (tests/cuda/conv_plan_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/op_args.hpp"

namespace dlk::cuda {

enum class ConvDirection { forward, backward_data, backward_weights };

// cuDNN's math mode for a float convolution: FMA only (true f32) unless the
// context allows TF32; tensor cores for f16 and bf16.
enum class ConvMath { fma, tf32_allowed, tensor_op };
ConvMath conv_math(dlk_dtype dtype, bool allow_tf32);

// The numbers cuDNN's tensor, filter and convolution descriptors take. dlk's
// NHWC weights (k x kh x kw x c/groups) are cuDNN's NHWC filter layout, so one
// format flag describes all three tensors.
struct CudnnConvShape {
  bool nhwc = false;
  int n = 0, c = 0, h = 0, w = 0;         // src / diff_src
  int k = 0, c_per_group = 0, kh = 0, kw = 0;  // weights
  int oh = 0, ow = 0;                     // dst / diff_dst: n x k x oh x ow
  int pad_h = 0, pad_w = 0, stride_h = 0, stride_w = 0, dilation_h = 0, dilation_w = 0;
  int groups = 1;
};

// False (with why) when a size does not fit cuDNN's int dimensions.
bool cudnn_conv_shape(const core::Conv2dArgs &args, CudnnConvShape &out, const char *&why_not);

struct ConvKey {
  ConvDirection direction = ConvDirection::forward;
  dlk_dtype dtype = DLK_DTYPE_F32;
  ConvMath math = ConvMath::fma;
  CudnnConvShape shape;
  bool operator==(const ConvKey &o) const;
};

struct ConvKeyHash {
  size_t operator()(const ConvKey &key) const;
};

// dlk's im2col lowering on the GPU (conv_im2col.cpp): the strided-batch GEMM
// (batch = groups) of image `image` whose column matrix is `col`, laid out as
// launch_im2col writes it: NCHW col[g][c_g * kh * kw + r * kw + s][oy * ow + ox]
// is B with the weights as A; NHWC col[g][oy * ow + ox][(r * kw + s) * c_g + c]
// is A with the weights transposed as B. C is that image's part of `out`, a tensor of dst's
// shape and layout whose elements are `out_type` (dst itself, or an f32 product).
core::GemmArgs im2col_gemm_args(const core::Conv2dArgs &args, int64_t image, const void *col, void *out,
                                dlk_dtype out_type);

}  // namespace dlk::cuda
