// Softmax cross-entropy over logits, written by the framework as PyTorch's
// CrossEntropyLoss computes it (log-sum-exp with the maximum subtracted).
#pragma once

#include <cstdint>

namespace dlk_train {

// Returns the loss summed over the n samples; dlogits = (softmax - onehot) * scale.
double softmax_cross_entropy(const float *logits, const int32_t *labels, int64_t n,
                             int64_t classes, float scale, float *dlogits);

// Samples whose largest logit (the first on ties) is their label.
int64_t count_correct(const float *logits, const int32_t *labels, int64_t n, int64_t classes);

}  // namespace dlk_train
