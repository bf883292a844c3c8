// The magnitude threshold the topk selection pass compares with: a
// magnitude_key (numerics.hpp), so that NaN ranks above inf and ties are exact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dlk::codec {

// Working memory, allocated before the encode writes anything (so that running
// out of memory leaves the residual untouched).
struct ThresholdScratch {
  std::vector<uint32_t> histogram;  // exact
  std::vector<uint32_t> sample;     // sampled
};

// Sizes the scratch the threshold for (count, k) will need; may throw bad_alloc.
void reserve_threshold(ThresholdScratch &scratch, bool sampled, size_t count, size_t k);

// The k-th largest key of v = input (+ residual), 1 <= k <= count: two histogram
// passes over 16 and 15 bits of the key.
uint32_t exact_threshold(ThresholdScratch &scratch, const float *input, const float *residual,
                         size_t count, size_t k);

// An estimate of it from a stratified sample (Deep Gradient Compression), when
// the sample needed is small next to count; else the exact threshold.
uint32_t sampled_threshold(ThresholdScratch &scratch, const float *input,
                           const float *residual, size_t count, size_t k);

}  // namespace dlk::codec
