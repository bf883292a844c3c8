// conv2d forward, backward data and backward weights on cuDNN (conv_cudnn.cpp):
// descriptors and the algorithm chosen once per shape, cached per ConvKey: by
// cuDNN's heuristics among its deterministic algorithms (the default: same bits
// every run), or with DLK_CUDA_DETERMINISTIC=0 by its timed search (cudnnFind*Ex
// on the first call's buffers, which the call then overwrites); the context's workspace, grown to what the chosen
// algorithms need and reused. Bias, ReLU and diff_bias are dlk's kernels
// (conv_kernels.cu). Float types only: int8 forward is not on the GPU yet.
#pragma once

#include <cudnn.h>
#include <cuda_runtime.h>

#include <memory>
#include <mutex>
#include <unordered_map>

#include "backends/cuda/conv_plan.hpp"
#include "backends/cuda/device_scratch.hpp"
#include "core/backend.hpp"

namespace dlk::cuda {

class CudnnConv {
 public:
  CudnnConv(cudaStream_t stream, bool allow_tf32, bool deterministic);
  ~CudnnConv();
  CudnnConv(const CudnnConv &) = delete;
  CudnnConv &operator=(const CudnnConv &) = delete;

  core::OpResult forward(const core::Conv2dArgs &args);
  core::OpResult backward_data(const core::Conv2dArgs &args);
  core::OpResult backward_weights(const core::Conv2dArgs &args);

 private:
  struct Plan;
  Plan &plan(ConvDirection direction, const core::Conv2dArgs &args);
  void search(Plan &plan, ConvDirection direction, const core::Conv2dArgs &args);

  cudaStream_t stream_;
  bool allow_tf32_;
  bool deterministic_;
  cudnnHandle_t handle_ = nullptr;
  DeviceScratch workspace_;
  std::mutex cache_mutex_;
  std::unordered_map<ConvKey, std::unique_ptr<Plan>, ConvKeyHash> cache_;
};

}  // namespace dlk::cuda
