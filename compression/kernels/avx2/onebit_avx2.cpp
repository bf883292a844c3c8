// onebit, avx2 tier: two 8-lane accumulators hold the 16 lanes of reduce_lanes16.
#include "compression/kernels/avx2/avx2_common.hpp"
#include "compression/kernels/numerics.hpp"

namespace dlk::codec::avx2 {
namespace {

// All ones in lane l when bit l of bits8 is set.
inline __m256 lanes_of(uint32_t bits8) {
  const __m256i select = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  const __m256i set = _mm256_and_si256(_mm256_set1_epi32(static_cast<int>(bits8)), select);
  return _mm256_castsi256_ps(_mm256_cmpeq_epi32(set, select));
}

}  // namespace

void onebit_encode(const float *input, float *residual, size_t count, size_t block_size,
                   uint8_t *block_means, uint8_t *sign_bits) {
  const __m256 zero = _mm256_setzero_ps();
  for (size_t start = 0, block = 0; start < count; start += block_size, ++block) {
    const size_t len = block_length(block_size, count, start);
    const float *x = input + start;
    float *r = residual ? residual + start : nullptr;

    Pair positive{zero, zero}, negative{zero, zero};
    uint32_t negatives = 0;
    for_each_group(len, [&](size_t g, const PairMask &m) {
      // Lanes past the end load as +0: neither negative nor adding anything.
      const Pair v = load_v(x + g, r ? r + g : nullptr, m);
      const __m256 lo_negative = _mm256_cmp_ps(v.lo, zero, _CMP_LT_OQ);
      const __m256 hi_negative = _mm256_cmp_ps(v.hi, zero, _CMP_LT_OQ);
      const __m256 lo_square = _mm256_mul_ps(v.lo, v.lo), hi_square = _mm256_mul_ps(v.hi, v.hi);
      positive.lo = _mm256_add_ps(positive.lo, _mm256_andnot_ps(lo_negative, lo_square));
      positive.hi = _mm256_add_ps(positive.hi, _mm256_andnot_ps(hi_negative, hi_square));
      negative.lo = _mm256_add_ps(negative.lo, _mm256_and_ps(lo_negative, lo_square));
      negative.hi = _mm256_add_ps(negative.hi, _mm256_and_ps(hi_negative, hi_square));
      const uint32_t bits = bits_of(lo_negative, hi_negative);
      negatives += static_cast<uint32_t>(__builtin_popcount(bits));
      store_group_bits(sign_bits + (start + g) / 8, bits, m.full ? kGroup : len - g);
    });
    const float positive_level = onebit_group_level(
        reduce_lanes16(positive), static_cast<uint32_t>(len) - negatives, x, r, len, false);
    const float negative_level =
        onebit_group_level(reduce_lanes16(negative), negatives, x, r, len, true);
    store_le<float>(block_means + 8 * block, positive_level);
    store_le<float>(block_means + 8 * block + 4, negative_level);

    if (!r) continue;
    // Second sweep over the block, from L1/L2: residual = v - reconstruction.
    const __m256 pos = _mm256_set1_ps(positive_level), neg = _mm256_set1_ps(negative_level);
    for_each_group(len, [&](size_t g, const PairMask &m) {
      const Pair v = load_v(x + g, r + g, m);
      const __m256 lo = _mm256_blendv_ps(pos, neg, _mm256_cmp_ps(v.lo, zero, _CMP_LT_OQ));
      const __m256 hi = _mm256_blendv_ps(pos, neg, _mm256_cmp_ps(v.hi, zero, _CMP_LT_OQ));
      store_pair(r + g, {_mm256_sub_ps(v.lo, lo), _mm256_sub_ps(v.hi, hi)}, m);
    });
  }
}

void onebit_decode(const uint8_t *block_means, const uint8_t *sign_bits, size_t count,
                   size_t block_size, float *output, Store store_mode) {
  with_store(store_mode, [&](auto mode) {
    constexpr Store S = decltype(mode)::value;
    for (size_t start = 0, block = 0; start < count; start += block_size, ++block) {
      const size_t len = block_length(block_size, count, start);
      const __m256 pos = _mm256_set1_ps(load_le<float>(block_means + 8 * block));
      const __m256 neg = _mm256_set1_ps(load_le<float>(block_means + 8 * block + 4));
      for_each_group(len, [&](size_t g, const PairMask &m) {
        const size_t i = start + g;
        const uint32_t bits = load_group_bits(sign_bits + i / 8, m.full ? kGroup : len - g);
        const Pair d{_mm256_blendv_ps(pos, neg, lanes_of(bits & 0xFF)),
                     _mm256_blendv_ps(pos, neg, lanes_of(bits >> 8))};
        put<S>(output + i, d, m);
      });
    }
  });
}

}  // namespace dlk::codec::avx2
