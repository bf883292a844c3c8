// topk selection pass, avx2 tier: compare 16 magnitudes with the threshold and
// append the few selected pairs one by one (AVX2 has no compress instruction,
// and a top-k keeps a small fraction).
#include "compression/kernels/avx2/avx2_common.hpp"
#include "compression/kernels/numerics.hpp"

namespace dlk::codec::avx2 {

size_t topk_select(const float *input, float *residual, size_t begin, size_t end,
                   uint32_t threshold, uint8_t *indices, uint8_t *values, size_t capacity,
                   size_t *resume) {
  const __m256i magnitude = _mm256_set1_epi32(0x7FFFFFFF);
  // Keys and threshold are < 2^31, so the signed compare orders them as unsigned.
  const __m256i limit = _mm256_set1_epi32(static_cast<int>(threshold));
  size_t selected = 0;
  // Each group returns false (having written nothing) when its pairs do not fit.
  *resume = for_each_group_while(begin, end, [&](size_t i, const PairMask &m) {
    const Pair v = load_v(input + i, residual ? residual + i : nullptr, m);
    const __m256 chosen_lo = _mm256_castsi256_ps(_mm256_andnot_si256(
        _mm256_cmpgt_epi32(limit, _mm256_and_si256(_mm256_castps_si256(v.lo), magnitude)), m.lo));
    const __m256 chosen_hi = _mm256_castsi256_ps(_mm256_andnot_si256(
        _mm256_cmpgt_epi32(limit, _mm256_and_si256(_mm256_castps_si256(v.hi), magnitude)), m.hi));
    uint32_t chosen = bits_of(chosen_lo, chosen_hi);
    if (chosen) {
      if (selected + static_cast<size_t>(__builtin_popcount(chosen)) > capacity) return false;
      alignas(32) float lanes[kGroup];
      _mm256_store_ps(lanes, v.lo);
      _mm256_store_ps(lanes + 8, v.hi);
      for (; chosen; chosen &= chosen - 1, ++selected) {
        const auto lane = static_cast<size_t>(__builtin_ctz(chosen));
        store_le<uint32_t>(indices + 4 * selected, static_cast<uint32_t>(i + lane));
        store_le<float>(values + 4 * selected, lanes[lane]);
      }
    }
    if (residual)
      store_pair(residual + i,
                 {_mm256_andnot_ps(chosen_lo, v.lo), _mm256_andnot_ps(chosen_hi, v.hi)}, m);
    return true;
  });
  return selected;
}

}  // namespace dlk::codec::avx2
