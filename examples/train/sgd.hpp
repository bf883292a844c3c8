// SGD with momentum as torch.optim.SGD (no dampening, no weight decay):
// v = momentum * v + g; w -= lr * v; and its form with the momentum kept per rank.
#pragma once

#include "layers/layer.hpp"

namespace dlk_train {

inline void sgd_momentum_step(Parameter &p, float lr, float momentum) {
  for (size_t i = 0; i < p.value.size(); ++i) {
    p.momentum[i] = momentum * p.momentum[i] + p.grad[i];
    p.value[i] -= lr * p.momentum[i];
  }
}

// Momentum correction (Deep Gradient Compression, Lin et al. 2018): the rank's
// own momentum u = momentum * u + g replaces its gradient before the all-reduce,
// so that error feedback carries what compression leaves out of the momentum,
// not of the gradient; after the all-reduce grad holds the ranks' summed u.
inline void accumulate_local_momentum(Parameter &p, float momentum) {
  for (size_t i = 0; i < p.grad.size(); ++i) {
    p.momentum[i] = momentum * p.momentum[i] + p.grad[i];
    p.grad[i] = p.momentum[i];
  }
}

inline void sgd_step(Parameter &p, float lr) {
  for (size_t i = 0; i < p.value.size(); ++i) p.value[i] -= lr * p.grad[i];
}

}  // namespace dlk_train
