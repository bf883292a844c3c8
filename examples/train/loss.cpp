#include "loss.hpp"

#include <algorithm>
#include <cmath>

namespace dlk_train {

double softmax_cross_entropy(const float *logits, const int32_t *labels, int64_t n,
                             int64_t classes, float scale, float *dlogits) {
  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float *z = logits + i * classes;
    float *g = dlogits + i * classes;
    const float top = *std::max_element(z, z + classes);
    float sum = 0;
    for (int64_t c = 0; c < classes; ++c) {
      g[c] = std::exp(z[c] - top);
      sum += g[c];
    }
    total += static_cast<double>(std::log(sum) + top - z[labels[i]]);
    for (int64_t c = 0; c < classes; ++c) g[c] = (g[c] / sum - (c == labels[i] ? 1.0f : 0.0f)) * scale;
  }
  return total;
}

int64_t count_correct(const float *logits, const int32_t *labels, int64_t n, int64_t classes) {
  int64_t correct = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float *z = logits + i * classes;
    correct += (std::max_element(z, z + classes) - z) == labels[i];
  }
  return correct;
}

}  // namespace dlk_train
