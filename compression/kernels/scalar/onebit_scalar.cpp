// onebit, scalar tier: the definition the vector tiers reproduce bit for bit.
#include "compression/kernels/kernel_table.hpp"
#include "compression/kernels/numerics.hpp"
#include "compression/kernels/mode_dispatch.hpp"

namespace dlk::codec::scalar {

void onebit_encode(const float *input, float *residual, size_t count, size_t block_size,
                   uint8_t *block_means, uint8_t *sign_bits) {
  for (size_t start = 0, block = 0; start < count; start += block_size, ++block) {
    const size_t len = block_length(block_size, count, start);
    const float *x = input + start;
    float *r = residual ? residual + start : nullptr;
    uint8_t *bits = sign_bits + start / 8;  // block_size is a multiple of 16

    float positive[kGroup] = {}, negative[kGroup] = {};
    uint32_t negatives = 0;
    for (size_t byte = 0; byte * 8 < len; ++byte) {
      unsigned packed = 0;
      for (size_t i = 8 * byte; i < 8 * byte + 8 && i < len; ++i) {
        const float v = r ? x[i] + r[i] : x[i];
        const bool is_negative = v < 0.0f;
        const float square = mul_x86(v, v);
        positive[i % kGroup] += keep_or_zero(!is_negative, square);
        negative[i % kGroup] += keep_or_zero(is_negative, square);
        negatives += is_negative;
        packed |= static_cast<unsigned>(is_negative) << (i % 8);
      }
      bits[byte] = static_cast<uint8_t>(packed);
    }
    const float positive_level = onebit_group_level(
        reduce_lanes16(positive), static_cast<uint32_t>(len) - negatives, x, r, len, false);
    const float negative_level =
        onebit_group_level(reduce_lanes16(negative), negatives, x, r, len, true);
    store_le<float>(block_means + 8 * block, positive_level);
    store_le<float>(block_means + 8 * block + 4, negative_level);

    if (!r) continue;
    for (size_t i = 0; i < len; ++i) {
      const float v = x[i] + r[i];
      r[i] = v - (v < 0.0f ? negative_level : positive_level);
    }
  }
}

void onebit_decode(const uint8_t *block_means, const uint8_t *sign_bits, size_t count,
                   size_t block_size, float *output, Store store_mode) {
  with_store(store_mode, [&](auto mode) {
    constexpr Store S = decltype(mode)::value;
    for (size_t start = 0, block = 0; start < count; start += block_size, ++block) {
      const size_t len = block_length(block_size, count, start);
      const float means[2] = {load_le<float>(block_means + 8 * block),
                              load_le<float>(block_means + 8 * block + 4)};
      for (size_t i = start; i < start + len; ++i) {
        const float d = means[(sign_bits[i / 8] >> (i % 8)) & 1];
        output[i] = S == Store::accumulate ? output[i] + d : d;
      }
    }
  });
}

}  // namespace dlk::codec::scalar
