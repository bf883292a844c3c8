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

core::OpResult conv2d_forward_im2col(const core::Conv2dArgs &args, LtGemm &gemm, DeviceScratch &col,
                                     cudaStream_t stream);

}  // namespace dlk::cuda
