// Fully connected, y = x W^T + b with W out x in (PyTorch's layout), as dlk GEMMs:
// forward one GEMM onto the broadcast bias; backward dW = dy^T x, db = 1^T dy,
// dx = dy W. bf16: the x, W and dy operands in bf16, f32 results (bf16 x bf16 -> f32).
#pragma once

#include "layers/layer.hpp"

namespace dlk_train {

class Linear : public Layer {
 public:
  Linear(const LayerSpec &spec, int64_t batch, Precision precision);
  void forward(Ops &ops, const float *x, float *y) override;
  void backward(Ops &ops, const float *x, const float *y, float *dy, float *dx,
                const std::function<void()> &parameters_done) override;
  std::vector<Parameter *> parameters() override { return {&weight_, &bias_}; }

 private:
  int64_t batch_, in_, out_;
  Precision precision_;
  Parameter weight_, bias_;
  std::vector<float> ones_;                // batch ones: db = ones^T dy
  std::vector<uint16_t> x16_, dy16_;       // bf16 operands
};

}  // namespace dlk_train
