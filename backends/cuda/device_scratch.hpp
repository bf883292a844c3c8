// A device buffer that grows to the largest size asked of it and is reused, so
// that ops in steady state allocate nothing.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "backends/cuda/cuda_check.hpp"

namespace dlk::cuda {

class DeviceScratch {
 public:
  explicit DeviceScratch(cudaStream_t stream) : stream_(stream) {}
  ~DeviceScratch() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceScratch(const DeviceScratch &) = delete;
  DeviceScratch &operator=(const DeviceScratch &) = delete;

  // At least `bytes` of device memory, 256-byte aligned (cudaMalloc's).
  void *get(size_t bytes) {
    if (bytes <= size_) return ptr_;
    if (ptr_) {
      // Work queued on the stream may still read the old buffer.
      check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
      check_cuda(cudaFree(ptr_), "cudaFree");
      ptr_ = nullptr;
      size_ = 0;
    }
    check_cuda(cudaMalloc(&ptr_, bytes), "cudaMalloc (scratch)");
    size_ = bytes;
    return ptr_;
  }

 private:
  cudaStream_t stream_;
  void *ptr_ = nullptr;
  size_t size_ = 0;
};

}  // namespace dlk::cuda
