// GEMM on cuBLASLt (gemm_cublaslt.cpp), planned by gemm_plan.hpp: one heuristic
// query per shape (cached with its descriptors), the context's workspace, and
// dlk's own kernels (gemm_kernels.cu) where cuBLASLt cannot do the integer
// epilogue or the operand layout.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <memory>
#include <mutex>
#include <unordered_map>

#include "backends/cuda/device_scratch.hpp"
#include "backends/cuda/gemm_plan.hpp"
#include "core/backend.hpp"

namespace dlk::cuda {

bool lt_gemm_supports(dlk_dtype a, dlk_dtype b, dlk_dtype c);

class LtGemm {
 public:
  LtGemm(cudaStream_t stream, bool allow_tf32);
  ~LtGemm();
  LtGemm(const LtGemm &) = delete;
  LtGemm &operator=(const LtGemm &) = delete;

  core::OpResult run(const core::GemmArgs &args);

 private:
  struct Cached;  // descriptors and the heuristic's algorithm for one key
  const Cached &cached(const GemmKey &key);
  void matmul(const Cached &entry, const void *alpha, const void *a, const void *b, const void *beta,
              void *c);
  core::OpResult run_staged_int8(const GemmPlan &plan, const core::GemmArgs &args);

  cudaStream_t stream_;
  bool allow_tf32_;
  cublasLtHandle_t handle_ = nullptr;
  DeviceScratch workspace_;  // cuBLASLt's, a fixed size
  DeviceScratch staging_;    // packed operands, product and column sums of the staged route
  DeviceScratch multipliers_;
  std::mutex cache_mutex_;
  std::unordered_map<GemmKey, std::unique_ptr<Cached>, GemmKeyHash> cache_;
};

}  // namespace dlk::cuda
