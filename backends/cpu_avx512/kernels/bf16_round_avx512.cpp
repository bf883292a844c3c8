// core::f32_to_bf16 on 16 lanes (kernels/bf16_round_kernels.hpp). Compiled
// with -mavx512f.
#include "backends/cpu_avx512/kernels/bf16_round_kernels.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/bf16_round_avx512.inc"

}  // namespace

void round_to_bf16_avx512(const float *in, int64_t n, uint16_t *out) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 lanes =
        n - i >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_cvtepi32_storeu_epi16(out + i, lanes,
                                      round_to_bf16_lanes(_mm512_maskz_loadu_ps(lanes, in + i)));
  }
}

}  // namespace dlk::cpu::kernels
