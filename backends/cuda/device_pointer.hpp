// Operands must be memory the context's GPU can address: a host pointer handed
// to a kernel would fault, and a fault is a sticky error that ruins the context.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "backends/cuda/cuda_check.hpp"

namespace dlk::cuda {

inline void require_device_pointer(const char *call, const char *argument, const void *ptr, int device) {
  cudaPointerAttributes attributes{};
  const cudaError_t err = cudaPointerGetAttributes(&attributes, ptr);
  if (err != cudaSuccess) cudaGetLastError();
  const bool device_memory = err == cudaSuccess && (attributes.type == cudaMemoryTypeDevice ||
                                                    attributes.type == cudaMemoryTypeManaged);
  if (!device_memory)
    core::throw_invalid(call, argument,
                        "is not device memory (a host pointer?); the cuda backend needs memory from "
                        "dlk_malloc on its context or another device allocation");
  if (attributes.type == cudaMemoryTypeDevice && attributes.device != device)
    core::throw_invalid(call, argument,
                        "is memory of CUDA device " + std::to_string(attributes.device) +
                            "; this context runs on device " + std::to_string(device));
}

}  // namespace dlk::cuda
