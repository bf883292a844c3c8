// fp16 / bf16 casts, scalar tier: the definition the vector tiers reproduce.
#include "compression/kernels/kernel_table.hpp"
#include "compression/kernels/numerics.hpp"
#include "compression/kernels/mode_dispatch.hpp"

namespace dlk::codec::scalar {
namespace {

template <HalfFormat F>
uint16_t to_half(float v) {
  return F == HalfFormat::fp16 ? fp16_from_float(v) : bf16_from_float(v);
}

template <HalfFormat F>
float from_half(uint16_t h) {
  return F == HalfFormat::fp16 ? fp16_to_float(h) : bf16_to_float(h);
}

template <HalfFormat F>
void encode(const float *input, float *residual, size_t count, uint8_t *codes) {
  for (size_t i = 0; i < count; ++i) {
    const float v = residual ? input[i] + residual[i] : input[i];
    const uint16_t h = to_half<F>(v);
    store_le<uint16_t>(codes + 2 * i, h);
    if (residual) residual[i] = v - from_half<F>(h);
  }
}

template <HalfFormat F, Store S>
void decode(const uint8_t *codes, size_t count, float *output) {
  for (size_t i = 0; i < count; ++i) {
    const float d = from_half<F>(load_le<uint16_t>(codes + 2 * i));
    output[i] = S == Store::accumulate ? output[i] + d : d;
  }
}

}  // namespace

void cast_encode(const float *input, float *residual, size_t count, HalfFormat format,
                 uint8_t *codes) {
  with_half_format(format, [&](auto half) {
    encode<decltype(half)::value>(input, residual, count, codes);
  });
}

void cast_decode(const uint8_t *codes, size_t count, HalfFormat format, float *output,
                 Store store_mode) {
  with_store(store_mode, [&](auto store) {
    with_half_format(format, [&](auto half) {
      decode<decltype(half)::value, decltype(store)::value>(codes, count, output);
    });
  });
}

}  // namespace dlk::codec::scalar
