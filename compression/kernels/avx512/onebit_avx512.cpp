// onebit, avx512 tier: 16 lanes per vector are exactly the 16 lanes of
// reduce_lanes16, so one accumulator per group reproduces the scalar sums.
#include "compression/kernels/avx512/avx512_common.hpp"
#include "compression/kernels/numerics.hpp"

namespace dlk::codec::avx512 {

void onebit_encode(const float *input, float *residual, size_t count, size_t block_size,
                   uint8_t *block_means, uint8_t *sign_bits) {
  const __m512 zero = _mm512_setzero_ps();
  for (size_t start = 0, block = 0; start < count; start += block_size, ++block) {
    const size_t len = block_length(block_size, count, start);
    const float *x = input + start;
    float *r = residual ? residual + start : nullptr;

    __m512 positive = zero, negative = zero;
    uint32_t negatives = 0;
    for_each_group(len, [&](size_t g, __mmask16 m) {
      const __m512 v = load_v(x + g, r ? r + g : nullptr, m);
      const __mmask16 is_negative = _mm512_mask_cmp_ps_mask(m, v, zero, _CMP_LT_OQ);
      const __m512 square = _mm512_mul_ps(v, v);
      positive = _mm512_add_ps(positive,
                               _mm512_maskz_mov_ps(static_cast<__mmask16>(~is_negative), square));
      negative = _mm512_add_ps(negative, _mm512_maskz_mov_ps(is_negative, square));
      negatives += static_cast<uint32_t>(__builtin_popcount(is_negative));
      store_group_bits(sign_bits + (start + g) / 8, is_negative, m == 0xFFFF ? kGroup : len - g);
    });
    const float positive_level = onebit_group_level(
        reduce_lanes16(positive), static_cast<uint32_t>(len) - negatives, x, r, len, false);
    const float negative_level =
        onebit_group_level(reduce_lanes16(negative), negatives, x, r, len, true);
    store_le<float>(block_means + 8 * block, positive_level);
    store_le<float>(block_means + 8 * block + 4, negative_level);

    if (!r) continue;
    // Second sweep over the block, from L1/L2: residual = v - reconstruction.
    const __m512 pos = _mm512_set1_ps(positive_level), neg = _mm512_set1_ps(negative_level);
    for_each_group(len, [&](size_t g, __mmask16 m) {
      const __m512 v = load_v(x + g, r + g, m);
      const __mmask16 is_negative = _mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ);
      store(r + g, _mm512_sub_ps(v, _mm512_mask_blend_ps(is_negative, pos, neg)), m);
    });
  }
}

void onebit_decode(const uint8_t *block_means, const uint8_t *sign_bits, size_t count,
                   size_t block_size, float *output, Store store_mode) {
  with_store(store_mode, [&](auto mode) {
    constexpr Store S = decltype(mode)::value;
    for (size_t start = 0, block = 0; start < count; start += block_size, ++block) {
      const size_t len = block_length(block_size, count, start);
      const __m512 pos = _mm512_set1_ps(load_le<float>(block_means + 8 * block));
      const __m512 neg = _mm512_set1_ps(load_le<float>(block_means + 8 * block + 4));
      for_each_group(len, [&](size_t g, __mmask16 m) {
        const size_t i = start + g;
        const auto is_negative = static_cast<__mmask16>(
            load_group_bits(sign_bits + i / 8, m == 0xFFFF ? kGroup : len - g));
        put<S>(output + i, _mm512_mask_blend_ps(is_negative, pos, neg), m);
      });
    }
  });
}

}  // namespace dlk::codec::avx512
