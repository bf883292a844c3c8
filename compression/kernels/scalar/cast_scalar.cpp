// fp16 / bf16 casts, scalar tier: the definition the vector tiers reproduce.
#include "compression/kernels/kernel_table.hpp"
#include "compression/kernels/numerics.hpp"

namespace dlk::codec::scalar {

void cast_encode(const float *input, float *residual, size_t count, HalfFormat format,
                 uint8_t *codes) {
  for (size_t i = 0; i < count; ++i) {
    const float v = residual ? input[i] + residual[i] : input[i];
    const uint16_t h = format == HalfFormat::fp16 ? fp16_from_float(v) : bf16_from_float(v);
    store_le<uint16_t>(codes + 2 * i, h);
    if (residual)
      residual[i] = v - (format == HalfFormat::fp16 ? fp16_to_float(h) : bf16_to_float(h));
  }
}

void cast_decode(const uint8_t *codes, size_t count, HalfFormat format, float *output,
                 Store store) {
  for (size_t i = 0; i < count; ++i) {
    const uint16_t h = load_le<uint16_t>(codes + 2 * i);
    const float d = format == HalfFormat::fp16 ? fp16_to_float(h) : bf16_to_float(h);
    output[i] = store == Store::accumulate ? output[i] + d : d;
  }
}

}  // namespace dlk::codec::scalar
