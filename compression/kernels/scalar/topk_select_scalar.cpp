// topk selection pass, scalar tier.
#include "compression/kernels/kernel_table.hpp"
#include "compression/kernels/numerics.hpp"

namespace dlk::codec::scalar {

size_t topk_select(const float *input, float *residual, size_t begin, size_t end,
                   uint32_t threshold, uint8_t *indices, uint8_t *values, size_t capacity,
                   size_t *resume) {
  size_t selected = 0;
  for (size_t i = begin; i < end; ++i) {
    const float v = residual ? input[i] + residual[i] : input[i];
    if (magnitude_key(v) >= threshold) {
      if (selected == capacity) {
        *resume = i;
        return selected;
      }
      store_le<uint32_t>(indices + 4 * selected, static_cast<uint32_t>(i));
      store_le<float>(values + 4 * selected, v);
      ++selected;
      if (residual) residual[i] = 0.0f;
    } else if (residual) {
      residual[i] = v;
    }
  }
  *resume = end;
  return selected;
}

}  // namespace dlk::codec::scalar
