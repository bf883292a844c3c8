// The CUDA backend: one device, one stream (its own or the caller's), cuBLASLt
// for GEMM. Built as the module libdlk_cuda.so, which libdlk loads with dlopen.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <mutex>
#include <unordered_set>

#include "backends/cuda/gemm_cublaslt.hpp"
#ifdef DLK_CUDA_HAVE_CUDNN
#include "backends/cuda/conv_cudnn.hpp"
#endif
#include "core/backend.hpp"

namespace dlk::cuda {

class CudaBackend final : public core::Backend {
 public:
  explicit CudaBackend(const core::BackendConfig &config);
  ~CudaBackend() override;

  const char *name() const override { return "cuda"; }
  core::DeviceInfo info() const override;
  bool supports(dlk_op op, dlk_dtype a, dlk_dtype b, dlk_dtype c) const override;

  void *allocate(size_t bytes) override;
  void deallocate(void *ptr) override;
  bool owns(const void *ptr) const override;
  void copy(void *dst, const void *src, size_t bytes, dlk_copy_kind kind) override;
  void synchronize() override;

  core::OpResult gemm(const core::GemmArgs &args) override;
  core::OpResult conv2d_forward(const core::Conv2dArgs &args) override;
  core::OpResult conv2d_backward_data(const core::Conv2dArgs &args) override;
  core::OpResult conv2d_backward_weights(const core::Conv2dArgs &args) override;
  core::OpResult pool2d_forward(const core::Pool2dArgs &args) override;
  core::OpResult pool2d_backward(const core::Pool2dArgs &args) override;

  bool supports_codec(const dlk_codec_params &params) const override;
  void require_codec_memory(const char *call, const char *argument, const void *ptr) const override;
  uint64_t codec_encode(const core::CodecEncodeArgs &args) override;
  void codec_decode(const core::CodecDecodeArgs &args) override;

 private:
  int device_ = 0;
  bool allow_tf32_ = false;
  bool conv_im2col_ = false;  // DLK_CUDA_CONV=im2col
  bool deterministic_ = true;  // cuDNN algorithms by heuristic, deterministic only (DLK_CUDA_DETERMINISTIC)
  cudaStream_t stream_ = nullptr;
  bool owns_stream_ = false;
  std::unique_ptr<LtGemm> gemm_;
  std::unique_ptr<DeviceScratch> flag_;     // pool2d backward's argmax check
  std::unique_ptr<DeviceScratch> columns_;  // im2col's column matrices (+ the f32 product: conv_im2col.hpp)
#ifdef DLK_CUDA_HAVE_CUDNN
  // Created on the first convolution: cuDNN's handle costs time and memory that a
  // GEMM-only context need not pay.
  CudnnConv &conv();
  std::mutex conv_mutex_;
  std::unique_ptr<CudnnConv> conv_;
#endif
  mutable std::mutex allocations_mutex_;
  std::unordered_set<const void *> allocations_;
};

}  // namespace dlk::cuda
