#include "backends/cpu_avx512/kernels/gemm_microkernel.hpp"

namespace dlk::cpu::kernels {

void gemm_f32_generic_4x8(int64_t kc, const float *__restrict a, const float *__restrict b,
                          const F32Tile &tile) {
  constexpr int MR = 4, NR = 8;
  float acc[MR][NR] = {};
  for (int64_t p = 0; p < kc; ++p) {
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j) acc[i][j] += a[p * MR + i] * b[p * NR + j];
  }
  for (int i = 0; i < tile.rows; ++i) {
    float *c = tile.c + i * tile.ldc;
    for (int j = 0; j < tile.cols; ++j)
      c[j] = tile.beta == 0.0f ? tile.alpha * acc[i][j] : tile.alpha * acc[i][j] + tile.beta * c[j];
  }
}

}  // namespace dlk::cpu::kernels
