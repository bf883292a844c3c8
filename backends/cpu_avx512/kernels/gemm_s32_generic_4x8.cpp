#include "backends/cpu_avx512/kernels/gemm_microkernel.hpp"

namespace dlk::cpu::kernels {

void gemm_s32_generic_4x8(int64_t kc, const uint8_t *__restrict a, const int8_t *__restrict b,
                          const S32Tile &tile) {
  constexpr int MR = 4, NR = 8;
  // Unsigned accumulators: the sum wraps modulo 2^32 as the hardware does, which
  // signed overflow in C++ would not guarantee. Each product fits in int32, so
  // only the sums can wrap.
  uint32_t acc[MR][NR] = {};
  for (int64_t q = 0; q < kc / 4; ++q) {
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j)
        for (int r = 0; r < 4; ++r)
          acc[i][j] += static_cast<uint32_t>(int32_t{a[(q * MR + i) * 4 + r]} *
                                             int32_t{b[(q * NR + j) * 4 + r]});
  }
  for (int i = 0; i < tile.rows; ++i) {
    int32_t *c = tile.c + i * tile.ldc;
    for (int j = 0; j < tile.cols; ++j) {
      const uint32_t compensation =
          tile.a_zero ? static_cast<uint32_t>(tile.a_zero) * static_cast<uint32_t>(tile.col_sums[j]) : 0u;
      const uint32_t before = tile.accumulate ? static_cast<uint32_t>(c[j]) : 0u;
      c[j] = static_cast<int32_t>(before + acc[i][j] - compensation);
    }
  }
}

}  // namespace dlk::cpu::kernels
