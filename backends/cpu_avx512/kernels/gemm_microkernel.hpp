// The GEMM micro-kernels' fixed signatures (one per accumulator type, as BLIS has
// one per dtype). A micro-kernel multiplies a packed A micro-panel by a packed B
// micro-panel on registers,
//
//   acc[i][j] = sum_p a[p * MR + i] * b[p * NR + j],   0 <= p < kc,
//
// (both panels p-major and padded with zeros to full MR rows and NR columns; the
// int8 kernels read their own k-grouped layouts, gemm_pack.hpp) and fuses the
// store of the tile into C: only the `rows` x `cols` corner is read or written,
// by masked loads and stores, so edge tiles need no scalar fallback. Blocking,
// packing, threading and the conversions to C's type live once above them
// (gemm_driver.cpp), so a kernel only has to honour this.
#pragma once

#include <cstdint>

namespace dlk::cpu::kernels {

// Where an f32 tile goes: c[i * ldc + j] = alpha * acc[i][j] + beta * c[i * ldc + j]
// for i < rows, j < cols; beta == 0 never reads c (it may hold NaN).
struct F32Tile {
  float *c;
  int64_t ldc;
  int rows, cols;
  float alpha, beta;
};

// Where an s32 tile goes: c = acc, or c + acc when accumulate, wrapping modulo
// 2^32 as the hardware does.
struct S32Tile {
  int32_t *c;
  int64_t ldc;
  int rows, cols;
  bool accumulate;
};

// f32 accumulation, for f32, f16 and bf16 operands (packed as f32).
using GemmF32Microkernel = void (*)(int64_t kc, const float *a, const float *b,
                                    const F32Tile &tile);
// s32 accumulation for int8 operands packed as int16 (A minus its zero point
// needs 9 bits).
using GemmS32Microkernel = void (*)(int64_t kc, const int16_t *a, const int16_t *b,
                                    const S32Tile &tile);

// Scalar tier: plain loops that the compiler vectorises for the x86-64 baseline;
// 4 x 8 keeps the accumulators in its sixteen SSE registers.
void gemm_f32_generic_4x8(int64_t kc, const float *a, const float *b, const F32Tile &tile);
void gemm_s32_generic_4x8(int64_t kc, const int16_t *a, const int16_t *b, const S32Tile &tile);

// AVX2 + FMA tier: 6 x 16 = twelve ymm accumulators, two B vectors and a
// broadcast A value in the sixteen ymm registers; twelve independent FMA chains
// cover 2 pipes x 4 cycles of latency.
void gemm_f32_avx2_6x16(int64_t kc, const float *a, const float *b, const F32Tile &tile);

// AVX-512 tier: 14 x 32 = twenty-eight zmm accumulators, two B vectors and a
// broadcast in the 32 zmm registers; 28 FMAs per 2 vector loads and 14
// broadcasts, so the load ports never limit the FMA pipes.
void gemm_f32_avx512_14x32(int64_t kc, const float *a, const float *b, const F32Tile &tile);

}  // namespace dlk::cpu::kernels
