// Max pooling: dlk_pool2d_forward keeps the argmax, dlk_pool2d_backward scatters
// through it (f32 in both precisions: pooling only moves values).
#pragma once

#include "layers/layer.hpp"

namespace dlk_train {

class MaxPool : public Layer {
 public:
  MaxPool(const LayerSpec &spec, int64_t batch);
  void forward(Ops &ops, const float *x, float *y) override;
  void backward(Ops &ops, const float *x, const float *y, float *dy, float *dx,
                const std::function<void()> &parameters_done) override;

 private:
  dlk_pool2d_desc desc_;
  std::vector<int32_t> argmax_;
};

}  // namespace dlk_train
