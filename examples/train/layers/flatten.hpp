// Flatten: NCHW already lies as n x (c h w), so both passes copy.
#pragma once

#include <algorithm>

#include "layers/layer.hpp"

namespace dlk_train {

class Flatten : public Layer {
 public:
  Flatten(const LayerSpec &spec, int64_t batch)
      : Layer(spec), elements_(static_cast<size_t>(batch * spec.out.elements())) {}
  void forward(Ops &, const float *x, float *y) override { std::copy(x, x + elements_, y); }
  void backward(Ops &, const float *, const float *, float *dy, float *dx,
                const std::function<void()> &) override {
    if (dx) std::copy(dy, dy + elements_, dx);
  }

 private:
  size_t elements_;
};

}  // namespace dlk_train
