// A model's layers built from its ModelSpec for a local batch, with the
// activations and their gradients between them, weight init from a seed, and
// each layer's forward and backward times of the last step.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "layers/layer.hpp"

namespace dlk_train {

using Clock = std::chrono::steady_clock;

struct LayerTiming {
  Clock::time_point forward_start, forward_end, backward_start, backward_end;
};

class Network {
 public:
  Network(const ModelSpec &model, int64_t batch, Precision precision);

  // PyTorch's default init for Conv2d and Linear: weight and bias uniform in
  // [-1/sqrt(fan_in), 1/sqrt(fan_in)], drawn in forward order from `seed`.
  void init(uint64_t seed);
  // After the master weights change: the bf16 copies the ops read (bf16 runs).
  void refresh_low_precision();

  int64_t batch() const { return batch_; }
  float *input() { return activations_.front().data(); }
  const float *forward(Ops &ops);  // logits, batch x classes
  // From the logits' gradient; `done` is called for each layer with parameters,
  // last layer first, once its gradients are final and before its input's
  // gradient is computed (so that their all-reduce overlaps that GEMM).
  void backward(Ops &ops, const float *dlogits, const std::function<void(Layer &)> &done);

  std::vector<std::unique_ptr<Layer>> &layers() { return layers_; }
  // Every parameter, forward order.
  std::vector<Parameter *> parameters();
  const std::vector<LayerTiming> &timings() const { return timings_; }

 private:
  int64_t batch_;
  Precision precision_;
  std::vector<std::unique_ptr<Layer>> layers_;
  std::vector<bool> needs_input_gradient_;
  std::vector<std::vector<float>> activations_, gradients_;  // layer i reads i, writes i + 1
  std::vector<LayerTiming> timings_;
};

}  // namespace dlk_train
