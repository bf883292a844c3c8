#include "backends/cpu_avx512/kernels/gemm_microkernel.hpp"

namespace dlk::cpu::kernels {

void gemm_f32_generic_4x8(int64_t kc, const float *__restrict a, const float *__restrict b,
                          float *__restrict c, int64_t ldc) {
  constexpr int MR = kGenericMR, NR = kGenericNR;
  float acc[MR][NR] = {};
  for (int64_t p = 0; p < kc; ++p) {
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j) acc[i][j] += a[p * MR + i] * b[p * NR + j];
  }
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) c[i * ldc + j] += acc[i][j];
}

}  // namespace dlk::cpu::kernels
