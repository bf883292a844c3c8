// conv2d forward by dlk's own lowering on the GPU (DLK_CUDA_CONV=im2col): per
// image, the im2col kernel (conv_kernels.cu) writes every group's column matrix,
// then one strided-batch GEMM over the groups on cuBLASLt (LtGemm, with its
// heuristic cache), then the bias/ReLU kernel. Float types.
#pragma once

#include <cuda_runtime.h>

#include "backends/cuda/conv_plan.hpp"
#include "backends/cuda/device_scratch.hpp"
#include "backends/cuda/gemm_cublaslt.hpp"
#include "core/backend.hpp"

namespace dlk::cuda {

core::OpResult conv2d_forward_im2col(const core::Conv2dArgs &args, LtGemm &gemm, DeviceScratch &scratch,
                                     cudaStream_t stream);

// f16/bf16 with a bias: the sum must be rounded once to 16 bits, and cuDNN's legacy API rounds the
// convolution before the bias is added, so these run here with an f32 product (the GEMM writes
// f32, the bias kernel rounds once). Measured on an H100: cuDNN + bias missed the bound by 1.4x.
bool forward_needs_f32_product(const core::Conv2dArgs &args);

}  // namespace dlk::cuda
