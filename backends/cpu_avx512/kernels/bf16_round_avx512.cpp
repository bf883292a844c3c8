// core::f32_to_bf16 on 16 lanes (kernels/bf16_round_kernels.hpp). Compiled
// with -mavx512f.
#include "backends/cpu_avx512/kernels/bf16_round_kernels.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {

void round_to_bf16_avx512(const float *in, int64_t n, uint16_t *out) {
  const __m512i magnitude = _mm512_set1_epi32(0x7fffffff);
  const __m512i infinity = _mm512_set1_epi32(0x7f800000);
  const __m512i half = _mm512_set1_epi32(0x7fff);
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i quiet = _mm512_set1_epi32(0x40);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 lanes =
        n - i >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512i x = _mm512_castps_si512(_mm512_maskz_loadu_ps(lanes, in + i));
    const __m512i top = _mm512_srli_epi32(x, 16);
    // x + 0x7fff + (the kept part's lowest bit): ties go to the even one.
    const __m512i rounded =
        _mm512_srli_epi32(_mm512_add_epi32(x, _mm512_add_epi32(half, _mm512_and_si512(top, one))), 16);
    const __mmask16 nan =
        _mm512_cmpgt_epu32_mask(_mm512_and_si512(x, magnitude), infinity);
    const __m512i bits = _mm512_mask_or_epi32(rounded, nan, top, quiet);
    _mm512_mask_cvtepi32_storeu_epi16(out + i, lanes, bits);
  }
}

}  // namespace dlk::cpu::kernels
