// What every layer of dlk-train is: forward and backward over a local batch of n
// samples, on host tensors (n x the spec's per-sample shape), through Ops.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model_spec.hpp"
#include "ops.hpp"

namespace dlk_train {

// A trainable tensor: the f32 master value, its gradient and SGD's momentum, and
// the bf16 copy the ops read when the run is bf16 (refreshed after each update).
struct Parameter {
  std::string name;  // "conv1.weight"
  std::vector<float> value, grad, momentum;
  std::vector<uint16_t> value_bf16;

  explicit Parameter(std::string n, size_t count)
      : name(std::move(n)), value(count), grad(count), momentum(count) {}
};

enum class Precision { f32, bf16 };

class Layer {
 public:
  explicit Layer(LayerSpec spec) : spec_(std::move(spec)) {}
  virtual ~Layer() = default;
  Layer(const Layer &) = delete;
  Layer &operator=(const Layer &) = delete;

  const LayerSpec &spec() const { return spec_; }
  virtual void forward(Ops &ops, const float *x, float *y) = 0;
  // x and y as forward saw them. dy may be overwritten (a fused ReLU masks it in
  // place); dx is null when the input's gradient is not needed. Fills every
  // parameter's grad, then calls parameters_done (layers with parameters), then
  // computes dx: the gradients' all-reduce starts while dx is computed.
  virtual void backward(Ops &ops, const float *x, const float *y, float *dy, float *dx,
                        const std::function<void()> &parameters_done) = 0;
  // In the order their gradients are produced (weight, then bias).
  virtual std::vector<Parameter *> parameters() { return {}; }

 private:
  LayerSpec spec_;
};

}  // namespace dlk_train
