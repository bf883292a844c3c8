#include "backends/cpu_avx512/kernels/gemm_microkernel.hpp"

namespace dlk::cpu::kernels {

void gemm_s32_generic_4x8(int64_t kc, const int16_t *__restrict a, const int16_t *__restrict b,
                          const S32Tile &tile) {
  constexpr int MR = 4, NR = 8;
  // Unsigned accumulators: the sum wraps modulo 2^32 as the hardware does, which
  // signed overflow in C++ would not guarantee. Each product fits in int32
  // (|a| <= 255, |b| <= 128), so only the sum can wrap.
  uint32_t acc[MR][NR] = {};
  for (int64_t p = 0; p < kc; ++p) {
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j)
        acc[i][j] += static_cast<uint32_t>(int32_t{a[p * MR + i]} * int32_t{b[p * NR + j]});
  }
  for (int i = 0; i < tile.rows; ++i) {
    int32_t *c = tile.c + i * tile.ldc;
    for (int j = 0; j < tile.cols; ++j) {
      const uint32_t before = tile.accumulate ? static_cast<uint32_t>(c[j]) : 0u;
      c[j] = static_cast<int32_t>(before + acc[i][j]);
    }
  }
}

}  // namespace dlk::cpu::kernels
