// SGD with momentum as torch.optim.SGD (no dampening, no weight decay):
// v = momentum * v + g; w -= lr * v.
#pragma once

#include "layers/layer.hpp"

namespace dlk_train {

inline void sgd_momentum_step(Parameter &p, float lr, float momentum) {
  for (size_t i = 0; i < p.value.size(); ++i) {
    p.momentum[i] = momentum * p.momentum[i] + p.grad[i];
    p.value[i] -= lr * p.momentum[i];
  }
}

}  // namespace dlk_train
