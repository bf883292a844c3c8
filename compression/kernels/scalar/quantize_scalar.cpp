// int8 / int4 blockwise quantization, scalar tier: the definition the vector
// tiers reproduce bit for bit.
#include <algorithm>
#include <cstring>

#include "compression/kernels/kernel_table.hpp"
#include "compression/kernels/numerics.hpp"
#include "compression/kernels/mode_dispatch.hpp"

namespace dlk::codec::scalar {
namespace {

template <int Bits, bool Stochastic>
void encode(const float *input, float *residual, size_t count, size_t block_size, uint64_t key,
            uint8_t *scales, uint8_t *codes) {
  constexpr float kMaxCode = quantize_max_code(Bits);
  for (size_t start = 0, block = 0; start < count; start += block_size, ++block) {
    const size_t len = block_length(block_size, count, start);
    const float *x = input + start;
    float *r = residual ? residual + start : nullptr;

    uint32_t max_key = 0;
    for (size_t i = 0; i < len; ++i)
      max_key = std::max(max_key, magnitude_key(r ? x[i] + r[i] : x[i]));
    const BlockScale s = block_scale(max_key, kMaxCode);
    store_le<float>(scales + 4 * block, s.scale);

    if (Bits == 4) std::memset(codes + start / 2, 0, (len + 1) / 2);
    const bool stochastic = Stochastic && rounds_stochastically(s.scale);
    for (size_t i = 0; i < len; ++i) {
      const float v = r ? x[i] + r[i] : x[i];
      const float y = clamp_code(v * s.inverse, kMaxCode);
      const float q = stochastic ? round_stochastic(y, random_word(key, start + i))
                                 : round_nearest_even(y);
      const auto code = static_cast<int32_t>(q);
      if (Bits == 8) {
        codes[start + i] = static_cast<uint8_t>(code);
      } else {
        const size_t at = (start + i) / 2;
        codes[at] = static_cast<uint8_t>(codes[at] | ((code & 0xF) << (4 * ((start + i) & 1))));
      }
      if (r) r[i] = v - dequantize(code, s.scale);
    }
  }
}

template <int Bits, Store S>
void decode(const uint8_t *scales, const uint8_t *codes, size_t count, size_t block_size,
            float *output) {
  for (size_t start = 0, block = 0; start < count; start += block_size, ++block) {
    const size_t len = block_length(block_size, count, start);
    const float scale = load_le<float>(scales + 4 * block);
    for (size_t i = start; i < start + len; ++i) {
      int32_t code;
      if (Bits == 8) {
        code = static_cast<int8_t>(codes[i]);
      } else {
        const int32_t nibble = (codes[i / 2] >> (4 * (i & 1))) & 0xF;
        code = (nibble ^ 8) - 8;  // sign-extend 4 bits
      }
      const float d = dequantize(code, scale);
      output[i] = S == Store::accumulate ? output[i] + d : d;
    }
  }
}

}  // namespace

void quantize_encode(const float *input, float *residual, size_t count, size_t block_size,
                     const QuantizeSpec &spec, uint8_t *scales, uint8_t *codes) {
  with_quantize_spec(spec, [&](auto bits, auto stochastic) {
    encode<decltype(bits)::value, decltype(stochastic)::value>(input, residual, count, block_size,
                                                               spec.key, scales, codes);
  });
}

void quantize_decode(const uint8_t *scales, const uint8_t *codes, size_t count, size_t block_size,
                     int bits, float *output, Store store_mode) {
  with_store(store_mode, [&](auto store) {
    with_bits(bits, [&](auto width) {
      decode<decltype(width)::value, decltype(store)::value>(scales, codes, count, block_size,
                                                             output);
    });
  });
}

}  // namespace dlk::codec::scalar
