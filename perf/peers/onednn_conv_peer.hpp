// oneDNN's convolution and pooling as the CPU peers of dlk's, NCHW, on the
// caller's host arrays (which must outlive the objects): pooling f32,
// convolution in the desc's dtypes (f32; forward also bf16 and u8 x s8 -> s32). A convolution runs in
// one of two forms: plain, with nchw / oihw memory as a framework that keeps
// NCHW tensors hands it; or `any`, in the blocked layouts oneDNN picks for
// itself, where the reorders of src into that layout and of dst back out of it
// (what such a framework pays per call) are separate candidates. Weights are
// reordered once up front in the `any` form, as a framework does.
#pragma once

#include <memory>
#include <string>

#include "dlk/dlk.h"

namespace dlk::perf {

enum class ConvPass { forward, backward_data, backward_weights };
const char *conv_pass_name(ConvPass pass);

// Tensors by role: forward reads src and weights, writes dst; backward data reads
// dst (as diff_dst) and weights, writes src (as diff_src); backward weights reads
// src and dst (as diff_dst), writes weights (as diff_weights).
struct ConvTensors {
  void *src, *weights, *dst;
};

class OneDnnConv {
 public:
  // blocked: the `any` form (forward only). Throws std::runtime_error when oneDNN
  // fails or has no primitive.
  OneDnnConv(const dlk_conv2d_desc &desc, ConvPass pass, bool blocked, const ConvTensors &t);
  ~OneDnnConv();
  OneDnnConv(const OneDnnConv &) = delete;
  OneDnnConv &operator=(const OneDnnConv &) = delete;

  // One call on `threads` OpenMP threads (oneDNN uses the caller's team size).
  void run(int threads) const;
  // The `any` form's per-call reorders: src into the blocked layout, dst back out.
  void reorder_in_out(int threads) const;
  std::string implementation() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// forward_training: max pooling writes its workspace, as dlk writes argmax;
// forward_inference: neither; backward reads the workspace of a forward run at
// construction.
enum class PoolPass { forward_training, forward_inference, backward };

class OneDnnPool {
 public:
  OneDnnPool(const dlk_pool2d_desc &desc, PoolPass pass, float *src, float *dst);
  ~OneDnnPool();
  OneDnnPool(const OneDnnPool &) = delete;
  OneDnnPool &operator=(const OneDnnPool &) = delete;

  void run(int threads) const;
  std::string implementation() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace dlk::perf
