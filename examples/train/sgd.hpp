// SGD with momentum as torch.optim.SGD (no dampening, no weight decay):
// v = momentum * v + g; w -= lr * v; its form with the momentum kept per rank; and
// the learning rate of a linear warm-up.
#pragma once

#include <cstdint>

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

// The learning rate of step `step` (0-based) under a linear warm-up of
// `warmup_steps` steps (Goyal et al. 2017, used by Deep Gradient Compression):
// lr * (step + 1) / warmup_steps, then lr. It lets the compressed algorithms'
// residuals build up while the steps are small, at no extra wire cost.
inline float warmed_up_lr(float lr, int64_t step, uint32_t warmup_steps) {
  if (step >= static_cast<int64_t>(warmup_steps)) return lr;
  return lr * static_cast<float>(step + 1) / static_cast<float>(warmup_steps);
}

inline void sgd_step(Parameter &p, float lr) {
  for (size_t i = 0; i < p.value.size(); ++i) p.value[i] -= lr * p.grad[i];
}

}  // namespace dlk_train
