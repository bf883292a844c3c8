// ReLU run by the framework: forward where no convolution's epilogue applies it,
// and every backward (dy *= y > 0, from the saved output).
#pragma once

#include "layers/layer.hpp"

namespace dlk_train {

void relu_mask(const float *y, size_t n, float *dy);

class Relu : public Layer {
 public:
  Relu(const LayerSpec &spec, int64_t batch)
      : Layer(spec), elements_(static_cast<size_t>(batch * spec.out.elements())) {}
  void forward(Ops &ops, const float *x, float *y) override;
  void backward(Ops &ops, const float *x, const float *y, float *dy, float *dx,
                const std::function<void()> &parameters_done) override;

 private:
  size_t elements_;
};

}  // namespace dlk_train
