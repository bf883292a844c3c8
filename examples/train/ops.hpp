// The dlk ops a training step runs, on one dlk::Context, with host pointers. On
// the cpu and fpga_sim backends they go straight to dlk (both take host memory);
// on cuda each operand is staged through device memory (dlk_malloc, dlk_memcpy),
// since the framework side of dlk-train (losses, ReLU masks, SGD) runs on the host.
// fpga_sim's simulated seconds are summed for the report.
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include <dlk/dlk.hpp>

namespace dlk_train {

class Ops {
 public:
  // stage_operands: stage through device memory on every backend (a test of the
  // cuda path's copies on machines without a GPU).
  Ops(const std::string &backend, int threads, bool stage_operands = false);

  void gemm(const dlk_gemm_desc &d, const void *a, const void *b, void *c);
  void conv_forward(const dlk_conv2d_desc &d, const void *src, const void *weights,
                    const float *bias, void *dst);
  void conv_backward_data(const dlk_conv2d_desc &d, const void *diff_dst, const void *weights,
                          void *diff_src);
  void conv_backward_weights(const dlk_conv2d_desc &d, const void *src, const void *diff_dst,
                             void *diff_weights, float *diff_bias);
  void pool_forward(const dlk_pool2d_desc &d, const void *src, void *dst, int32_t *argmax);
  void pool_backward(const dlk_pool2d_desc &d, const void *diff_dst, const int32_t *argmax,
                     void *diff_src);

  bool supports(dlk_op op, dlk_dtype a, dlk_dtype b, dlk_dtype c) const {
    return context_.supports(op, a, b, c);
  }
  const dlk_context_info &info() const { return info_; }
  bool staged() const { return staged_; }
  // Simulated accelerator seconds (fpga_sim) since the last call; 0 elsewhere.
  double take_sim_seconds();

 private:
  // Device copy of operand `slot`, at least `bytes` long.
  void *device(size_t slot, size_t bytes);
  void *upload(size_t slot, const void *host, size_t bytes);
  void download(void *host, size_t slot, size_t bytes);
  void after_op();

  dlk::Context context_;
  dlk_context_info info_{};
  bool staged_ = false;
  bool simulated_ = false;
  double sim_seconds_ = 0;
  std::array<dlk::Buffer<unsigned char>, 5> scratch_;
};

}  // namespace dlk_train
