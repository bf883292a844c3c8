// CUDA and cuBLAS failures as dlk errors that name the call that failed.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "core/backend.hpp"

namespace dlk::cuda {

inline void check_cuda(cudaError_t err, const char *what) {
  if (err != cudaSuccess)
    throw core::Error(err == cudaErrorMemoryAllocation ? DLK_STATUS_OUT_OF_MEMORY
                                                       : DLK_STATUS_RUNTIME_ERROR,
                      std::string("cuda: ") + what + ": " + cudaGetErrorName(err) + " (" +
                          cudaGetErrorString(err) + ")");
}

inline void check_cublas(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw core::Error(status == CUBLAS_STATUS_ALLOC_FAILED ? DLK_STATUS_OUT_OF_MEMORY
                                                           : DLK_STATUS_RUNTIME_ERROR,
                      std::string("cuda: ") + what + ": " + cublasGetStatusName(status));
}

}  // namespace dlk::cuda
