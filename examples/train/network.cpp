#include "network.hpp"

#include <cmath>
#include <random>
#include <stdexcept>

#include "layers/bf16.hpp"
#include "layers/conv2d.hpp"
#include "layers/flatten.hpp"
#include "layers/linear.hpp"
#include "layers/max_pool.hpp"
#include "layers/relu.hpp"

namespace dlk_train {

namespace {

std::unique_ptr<Layer> make_layer(const LayerSpec &s, int64_t batch, Precision precision) {
  switch (s.kind) {
    case LayerKind::conv2d: return std::make_unique<Conv2d>(s, batch, precision);
    case LayerKind::relu: return std::make_unique<Relu>(s, batch);
    case LayerKind::maxpool: return std::make_unique<MaxPool>(s, batch);
    case LayerKind::linear: return std::make_unique<Linear>(s, batch, precision);
    case LayerKind::flatten: return std::make_unique<Flatten>(s, batch);
    case LayerKind::avgpool: break;
  }
  throw std::logic_error("layer " + s.name + ": no implementation of " + layer_kind_name(s.kind));
}

int64_t fan_in(const LayerSpec &s) {
  return s.kind == LayerKind::conv2d ? (s.in.c / s.groups) * s.kernel * s.kernel : s.in.elements();
}

}  // namespace

Network::Network(const ModelSpec &model, int64_t batch, Precision precision)
    : batch_(batch), precision_(precision) {
  activations_.emplace_back(static_cast<size_t>(batch * model.input.elements()));
  bool seen_parameters = false;
  for (const LayerSpec &s : model.layers) {
    if (!s.fused_into.empty()) continue;  // runs inside its convolution
    layers_.push_back(make_layer(s, batch, precision));
    needs_input_gradient_.push_back(seen_parameters);
    seen_parameters = seen_parameters || weight_elements(s) > 0;
    activations_.emplace_back(static_cast<size_t>(batch * s.out.elements()));
  }
  for (const auto &a : activations_) gradients_.emplace_back(a.size());
  timings_.resize(layers_.size());
}

std::vector<Parameter *> Network::parameters() {
  std::vector<Parameter *> all;
  for (auto &l : layers_)
    for (Parameter *p : l->parameters()) all.push_back(p);
  return all;
}

void Network::init(uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (auto &l : layers_) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in(l->spec())));
    for (Parameter *p : l->parameters()) {
      for (float &v : p->value) {
        const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // [0, 1)
        v = static_cast<float>((2.0 * u - 1.0) * bound);
      }
      std::fill(p->momentum.begin(), p->momentum.end(), 0.0f);
    }
  }
  refresh_low_precision();
}

void Network::refresh_low_precision() {
  if (precision_ != Precision::bf16) return;
  for (Parameter *p : parameters()) to_bf16(p->value.data(), p->value.size(), p->value_bf16);
}

const float *Network::forward(Ops &ops) {
  for (size_t i = 0; i < layers_.size(); ++i) {
    timings_[i].forward_start = Clock::now();
    layers_[i]->forward(ops, activations_[i].data(), activations_[i + 1].data());
    timings_[i].forward_end = Clock::now();
  }
  return activations_.back().data();
}

void Network::backward(Ops &ops, const float *dlogits, const std::function<void(Layer &)> &done) {
  std::copy(dlogits, dlogits + gradients_.back().size(), gradients_.back().begin());
  for (size_t i = layers_.size(); i-- > 0;) {
    Layer &l = *layers_[i];
    const bool has_parameters = !l.parameters().empty();
    timings_[i].backward_start = Clock::now();
    if (!needs_input_gradient_[i] && !has_parameters) {  // before the first weights: no work
      timings_[i].backward_end = timings_[i].backward_start;
      continue;
    }
    bool reported = false;
    l.backward(ops, activations_[i].data(), activations_[i + 1].data(), gradients_[i + 1].data(),
               needs_input_gradient_[i] ? gradients_[i].data() : nullptr, [&] {
                 reported = true;
                 done(l);
               });
    timings_[i].backward_end = Clock::now();
    if (has_parameters && !reported)
      throw std::logic_error("layer " + l.spec().name + ": backward never called parameters_done");
  }
}

}  // namespace dlk_train
