// The AVX2 tier of the bf16 and int8 GEMV loops (gemm_gemv.cpp): gemv_tier.inc
// built with -mavx2 -mfma; called only when the CPU has both.
#include "backends/cpu_avx512/kernels/gemv_tier.inc"

namespace dlk::cpu::kernels {

void gemv_bf16_avx2(const GemvShape &s, const uint16_t *m, const uint16_t *x, float *acc) {
  gemv_bf16(s, m, x, acc);
}

void gemv_int8_avx2(const GemvShape &s, const GemvInt8Operands &o, int32_t *acc) {
  gemv_int8(s, o, acc);
}

}  // namespace dlk::cpu::kernels
