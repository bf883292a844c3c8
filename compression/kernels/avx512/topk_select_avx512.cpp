// topk selection pass, avx512 tier: compare 16 magnitudes with the threshold,
// compress the selected (index, value) pairs into the message.
#include "compression/kernels/avx512/avx512_common.hpp"
#include "compression/kernels/numerics.hpp"

namespace dlk::codec::avx512 {

size_t topk_select(const float *input, float *residual, size_t begin, size_t end,
                   uint32_t threshold, uint8_t *indices, uint8_t *values, size_t capacity,
                   size_t *resume) {
  const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i magnitude = _mm512_set1_epi32(0x7FFFFFFF);
  const __m512i limit = _mm512_set1_epi32(static_cast<int>(threshold));
  size_t selected = 0;
  // Each group returns false (having written nothing) when its pairs do not fit.
  *resume = for_each_group_while(begin, end, [&](size_t i, __mmask16 m) {
    const __m512 v = load_v(input + i, residual ? residual + i : nullptr, m);
    const __m512i key = _mm512_and_si512(_mm512_castps_si512(v), magnitude);
    const __mmask16 chosen = _mm512_mask_cmpge_epu32_mask(m, key, limit);
    if (chosen) {
      const auto n = static_cast<size_t>(__builtin_popcount(chosen));
      if (selected + n > capacity) return false;
      const __m512i index = _mm512_maskz_compress_epi32(
          chosen,
          _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(i))), lanes));
      const __m512 value = _mm512_maskz_compress_ps(chosen, v);
      // A full store when the arrays have room for 16 (what lies past the pairs
      // is never read), else only the n pairs.
      const __mmask16 kept =
          selected + kGroup <= capacity ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << n) - 1);
      store(reinterpret_cast<float *>(indices + 4 * selected), _mm512_castsi512_ps(index), kept);
      store(reinterpret_cast<float *>(values + 4 * selected), value, kept);
      selected += n;
    }
    if (residual) store(residual + i, _mm512_maskz_mov_ps(static_cast<__mmask16>(~chosen), v), m);
    return true;
  });
  return selected;
}

}  // namespace dlk::codec::avx512
