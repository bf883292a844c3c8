// The CPU backend: host memory, OpenMP threads, and the op implementations
// chosen by the ISA the context allows.
#pragma once

#include <mutex>
#include <unordered_map>

#include "backends/cpu_avx512/scratch.hpp"
#include "core/backend.hpp"

namespace dlk::cpu {

class CpuBackend final : public core::Backend {
 public:
  explicit CpuBackend(const core::BackendConfig &config);
  ~CpuBackend() override;

  const char *name() const override { return "cpu"; }
  core::DeviceInfo info() const override;
  bool supports(dlk_op op, dlk_dtype a, dlk_dtype b, dlk_dtype c) const override;

  void *allocate(size_t bytes) override;
  void deallocate(void *ptr) override;
  bool owns(const void *ptr) const override;
  void copy(void *dst, const void *src, size_t bytes, dlk_copy_kind kind) override;
  void synchronize() override {}

  core::OpResult gemm(const core::GemmArgs &args) override;
  core::OpResult conv2d_forward(const core::Conv2dArgs &args) override;
  std::unique_ptr<core::PackedConv2dWeights> conv2d_pack_weights(
      const core::Conv2dArgs &args) override;
  core::OpResult conv2d_forward_packed(const core::Conv2dArgs &args,
                                       const core::PackedConv2dWeights *packed) override;
  core::OpResult conv2d_backward_data(const core::Conv2dArgs &args) override;
  std::unique_ptr<core::PackedConv2dWeights> conv2d_pack_backward_data_weights(
      const core::Conv2dArgs &args) override;
  core::OpResult conv2d_backward_data_packed(const core::Conv2dArgs &args,
                                             const core::PackedConv2dWeights *packed) override;
  core::OpResult conv2d_backward_weights(const core::Conv2dArgs &args) override;
  core::OpResult pool2d_forward(const core::Pool2dArgs &args) override;
  core::OpResult pool2d_backward(const core::Pool2dArgs &args) override;

 private:
  core::BackendConfig config_;
  mutable std::mutex allocations_mutex_;
  std::unordered_map<const void *, size_t> allocations_;
  // The ops' scratch (scratch.hpp); the mutex keeps two threads that share the
  // context from using it at once.
  std::mutex scratch_mutex_;
  Scratch scratch_;
};

}  // namespace dlk::cpu
