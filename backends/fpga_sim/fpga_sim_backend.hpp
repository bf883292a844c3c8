// The simulated accelerator as a dlk backend: host memory, values computed as
// the array would (integer ops through core's host compute backend, which gives
// the CPU's bit-exact results; float ops in the array's own accumulation
// order), and every op's simulated cost in its OpResult.
#pragma once

#include <memory>

#include "backends/fpga_sim/accelerator_config.hpp"
#include "backends/fpga_sim/sim_cost.hpp"
#include "core/backend.hpp"

namespace dlk::fpga_sim {

class FpgaSimBackend final : public core::Backend {
 public:
  FpgaSimBackend(const AcceleratorConfig &accelerator, const core::BackendConfig &config);

  const char *name() const override { return "fpga_sim"; }
  core::DeviceInfo info() const override;
  bool supports(dlk_op op, dlk_dtype a, dlk_dtype b, dlk_dtype c) const override;

  void *allocate(size_t bytes) override { return host_->allocate(bytes); }
  void deallocate(void *ptr) override { host_->deallocate(ptr); }
  bool owns(const void *ptr) const override { return host_->owns(ptr); }
  void copy(void *dst, const void *src, size_t bytes, dlk_copy_kind kind) override {
    host_->copy(dst, src, bytes, kind);
  }
  void synchronize() override {}

  core::OpResult gemm(const core::GemmArgs &args) override;
  core::OpResult conv2d_forward(const core::Conv2dArgs &args) override;
  core::OpResult conv2d_backward_data(const core::Conv2dArgs &args) override;
  core::OpResult conv2d_backward_weights(const core::Conv2dArgs &args) override;
  core::OpResult pool2d_forward(const core::Pool2dArgs &args) override;
  core::OpResult pool2d_backward(const core::Pool2dArgs &args) override;

  const AcceleratorConfig &accelerator() const { return accelerator_; }

 private:
  core::OpResult result(const char *what, const SimCost &cost) const;

  AcceleratorConfig accelerator_;
  std::unique_ptr<core::Backend> host_;  // memory and integer values
};

}  // namespace dlk::fpga_sim
