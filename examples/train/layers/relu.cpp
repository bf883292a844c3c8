#include "layers/relu.hpp"

#include <algorithm>

namespace dlk_train {

void relu_mask(const float *y, size_t n, float *dy) {
  for (size_t i = 0; i < n; ++i) dy[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

void Relu::forward(Ops &, const float *x, float *y) {
  for (size_t i = 0; i < elements_; ++i) y[i] = std::max(x[i], 0.0f);
}

void Relu::backward(Ops &, const float *, const float *y, float *dy, float *dx,
                    const std::function<void()> &) {
  relu_mask(y, elements_, dy);
  if (dx) std::copy(dy, dy + elements_, dx);
}

}  // namespace dlk_train
