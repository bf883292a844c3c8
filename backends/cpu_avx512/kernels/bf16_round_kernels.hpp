// Rounding a run of f32 values to bf16, as a kernel per tier where one pays
// (the rule is core::f32_to_bf16: round to nearest even, NaN kept quiet).
// Element by element, on the baseline's SSE2, the rounding of res5b_1x1a's
// bf16 weight gradient (2048 x 512 f32 sums) took as long as its GEMM.
#pragma once

#include <cstdint>

namespace dlk::cpu::kernels {

// out[i] = core::f32_to_bf16(in[i]) for i < n, bit for bit (denormals kept:
// vcvtneps2bf16 would flush them).
using RoundToBf16 = void (*)(const float *in, int64_t n, uint16_t *out);
void round_to_bf16_avx512(const float *in, int64_t n, uint16_t *out);

}  // namespace dlk::cpu::kernels
