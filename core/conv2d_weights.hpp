// Packed convolution weights (dlk_conv2d_weights_create): owned by their context.
#pragma once

#include <cstddef>
#include <memory>

#include "core/backend.hpp"

// The desc the weights were packed for, the passes (dlk_conv2d_pass bits), a
// copy of the weights as given (on the backend's device: its kernels that read
// weights so, and the shapes its packed forms do not serve, read them there),
// and the backend's packed form for each pass, if any.
struct dlk_conv2d_weights {
  dlk_conv2d_weights(dlk::core::Backend &owner, const dlk::core::Conv2dArgs &args, size_t bytes);
  ~dlk_conv2d_weights();
  dlk_conv2d_weights(const dlk_conv2d_weights &) = delete;
  dlk_conv2d_weights &operator=(const dlk_conv2d_weights &) = delete;

  dlk::core::Backend &backend;
  dlk_conv2d_desc desc;  // scales NULL: the forward's own are read on each call
  unsigned passes = 0;
  void *plain = nullptr;
  std::unique_ptr<dlk::core::PackedConv2dWeights> packed, packed_backward_data;
};
