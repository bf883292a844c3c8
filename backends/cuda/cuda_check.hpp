// CUDA and cuBLASLt failures as dlk errors that name the call that failed. A
// failed runtime call's error is also taken off the thread (cudaGetLastError), so
// that no later check finds it again; sticky errors (a kernel fault) cannot be
// cleared and keep failing every call, as CUDA defines.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <string>

#include "core/backend.hpp"

namespace dlk::cuda {

inline void check_cuda(cudaError_t err, const char *what) {
  if (err == cudaSuccess) return;
  cudaGetLastError();
  throw core::Error(err == cudaErrorMemoryAllocation ? DLK_STATUS_OUT_OF_MEMORY : DLK_STATUS_RUNTIME_ERROR,
                    std::string("cuda: ") + what + ": " + cudaGetErrorName(err) + " (" +
                        cudaGetErrorString(err) + ")");
}

inline void check_cublas(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw core::Error(status == CUBLAS_STATUS_ALLOC_FAILED ? DLK_STATUS_OUT_OF_MEMORY
                                                           : DLK_STATUS_RUNTIME_ERROR,
                      std::string("cuda: ") + what + ": " + cublasLtGetStatusName(status));
}

}  // namespace dlk::cuda
