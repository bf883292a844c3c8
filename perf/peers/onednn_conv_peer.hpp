// oneDNN's convolution and pooling as the CPU peers of dlk's, on the caller's
// host arrays (which must outlive the objects): pooling f32 NCHW, convolution
// in the desc's dtypes (f32 and bf16 every pass; u8 x s8 -> s32 forward:
// oneDNN has no int8 backward) and format. A convolution runs in one of two
// forms: plain, with the nchw / oihw (or nhwc / ohwi) memory a framework that
// keeps such tensors hands it; or `any`, in the blocked layouts oneDNN picks
// for itself. In the
// `any` form the reorders between the caller's arrays and those layouts are
// run once at construction (so the primitive reads the caller's data) and
// can be timed apart: the data reorders (src / dst or their diffs, in and
// out), which such a framework pays every call, and the weights reorder (in
// for forward and backward data, diff out for backward weights), which it
// pays once per training step, i.e. once per call of each pass, and never
// for inference, whose weights it keeps reordered.
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
  // blocked: the `any` form. Throws std::runtime_error when oneDNN fails or has
  // no primitive.
  // `threads`: the OpenMP threads the primitive is created for (see the .cpp).
  OneDnnConv(const dlk_conv2d_desc &desc, ConvPass pass, bool blocked, const ConvTensors &t, int threads);
  ~OneDnnConv();
  OneDnnConv(const OneDnnConv &) = delete;
  OneDnnConv &operator=(const OneDnnConv &) = delete;

  // One call on `threads` OpenMP threads (oneDNN uses the caller's team size).
  void run(int threads) const;
  // The `any` form's data reorders (inputs in, outputs back out) and its
  // weights reorder; each does nothing where oneDNN chose the plain layout.
  void reorder_data(int threads) const;
  void reorder_weights(int threads) const;
  bool has_data_reorders() const;
  bool has_weights_reorder() const;
  std::string implementation() const;
  // oneDNN's reference code (ref:any, ref_int8, gemm ...:ref), which runs at a
  // small fraction of its optimised kernels: a peer not worth timing.
  bool is_reference() const;

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
