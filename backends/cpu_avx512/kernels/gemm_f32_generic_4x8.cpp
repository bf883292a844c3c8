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
    for (int j = 0; j < tile.cols; ++j) {
      float v = tile.alpha * acc[i][j];
      if (tile.beta != 0.0f) v += tile.beta * c[j];
      if (tile.row_bias) v += tile.row_bias[i];
      if (tile.col_bias) v += tile.col_bias[j];
      c[j] = tile.relu && v < 0.0f ? 0.0f : v;
    }
  }
}

}  // namespace dlk::cpu::kernels
