// Convolution with bias and its ReLU fused into dlk_conv2d_forward's epilogue;
// backward masks dy by the output, then dlk_conv2d_backward_weights (bias fused)
// and dlk_conv2d_backward_data. bf16: operands converted around the ops, f32
// master weights and gradients (the bias gradient is f32 from dlk already).
#pragma once

#include "layers/layer.hpp"

namespace dlk_train {

class Conv2d : public Layer {
 public:
  Conv2d(const LayerSpec &spec, int64_t batch, Precision precision);
  void forward(Ops &ops, const float *x, float *y) override;
  void backward(Ops &ops, const float *x, const float *y, float *dy, float *dx,
                const std::function<void()> &parameters_done) override;
  std::vector<Parameter *> parameters() override { return {&weight_, &bias_}; }

 private:
  dlk_conv2d_desc forward_desc_, backward_desc_;
  Precision precision_;
  Parameter weight_, bias_;
  std::vector<uint16_t> x16_, y16_, dy16_, dw16_, dx16_;  // bf16 operands
};

}  // namespace dlk_train
