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

// Where an f32 tile goes: c[i * ldc + j] = f(alpha * acc[i][j] + beta * c[i * ldc + j])
// for i < rows, j < cols; beta == 0 never reads c (it may hold NaN). f is the
// convolutions' epilogue, fused here so that no pass over C follows the GEMM:
// f(v) = relu(v + row_bias[i] + col_bias[j]), each part only when given
// (relu(v) = v < 0 ? 0 : v, so NaN stays NaN). The driver gives it on a tile's
// last k block only.
struct F32Tile {
  float *c;
  int64_t ldc;
  int rows, cols;
  float alpha, beta;
  const float *row_bias;  // rows values, or null
  const float *col_bias;  // cols values, or null
  bool relu;
  // 0: `a` is the packed micro-panel. Otherwise the kernel reads A where it
  // lies, row i's k-group u (one f32, a bf16 k-pair) at a + i * a_rs + u * group,
  // rows 0 .. rows - 1 only (rows even); only kernels whose GemmKernel says
  // reads_a_in_place are given this.
  int64_t a_rs;
  // 0, or (with a_rs 0) A's columns lie where the caller keeps them: row i's
  // k step u (f32) at a + i + u * a_cs, rows 0 .. rows - 1 only (rows even);
  // only kernels whose GemmKernel says reads_a_columns_in_place are given this.
  int64_t a_cs;
  // 0: `b` is the packed micro-panel. Otherwise B (f32, or bf16 rows, kc
  // even) is read where it lies, row p of the tile's columns at b + p * b_rs,
  // columns 0 .. cols - 1 only (a row may end there); only kernels whose
  // GemmKernel says reads_b_in_place are given this.
  int64_t b_rs;
  // 0, or (B in place) the elements ahead of each k step's row whose lines the
  // kernel also prefetches into L2 (a whole number of rows ahead).
  int64_t b_far;
  // Null, or the tile's values (c read where beta != 0, never written) go to
  // bf16 rows instead, rounded to nearest even (NaN kept quiet):
  // bf16[i * bf16_ld + j]; only kernels whose GemmKernel says stores_in_tile
  // are given this.
  uint16_t *bf16;
  int64_t bf16_ld;
  // Null, or (A's rows read in place, B packed) the tile's last cols % 16
  // columns (1 to kMaxTailColumns), past its whole vectors of 16, copied out
  // of B's micro-panel a column at a time: column t's k step u (an f32, a
  // bf16 k-pair) at b_tail[t * b_tail_ld + u], zeros from kc's last step up
  // to b_tail_ld (a multiple of 16); the kernel sums them as dot products
  // along k, not as a vector of 16 columns, or (rows not a full micro-row)
  // ignores them. The columns after the tile's up to kMaxTailColumns hold
  // zeros. Only kernels whose GemmKernel says sums_tail_columns are given this.
  const float *b_tail;
  int64_t b_tail_ld;
};

// F32Tile::b_tail's bounds: columns past a whole vector, and k steps (32-bit
// elements: the f32 kernel's KC is 512, the bf16 kernel's 1024 k in pairs,
// the int8 kernels' 2048 in quads).
constexpr int kMaxTailColumns = 4;
constexpr int64_t kMaxTailSteps = 512;

// An s32 tile's values requantized into s8 or u8 C on the last k block, by
// store_s32_tile's rule (gemm_epilogue.hpp) where no value can be NaN (beta 0,
// the multipliers and biases finite): x = v * multiplier + bias, clamped to
// [floor, above], rounded half to even, + zero_point, as a byte. floor is
// C's least value less the zero point, or 0 where that is less and ReLU
// applies; above is C's greatest less the zero point.
struct S32Requantize {
  void *c;  // the tile's element (0, 0) of C, its rows ldc bytes apart
  int64_t ldc;
  const float *row_multipliers;  // one per row of the tile, or null
  const float *col_multipliers;  // one per column, or null; neither: multiplier
  float multiplier;
  const float *row_bias;  // one per row, or null
  const float *col_bias;  // one per column, or null
  float floor, above;
  int32_t zero_point;
};

// Where an s32 tile goes: c = v, or c + v when accumulate, for
// v[i][j] = acc[i][j] - a_zero * col_sums[j] (u8 A x s8 B) or
// acc[i][j] - b_zero * row_sums[i] (s8 A x u8 B), all wrapping modulo 2^32 as
// the hardware does (the zero point of the u8 operand enters as a
// compensation term per column of B or row of A, which the driver computes from
// the other operand's packed panel: col_sums[j] = sum_p b[p][j] over the k
// block, row_sums[i] = sum_p a[i][p]).
struct S32Tile {
  int32_t *c;
  int64_t ldc;
  int rows, cols;
  bool accumulate;
  const int32_t *col_sums;  // NR values, read only where a_zero != 0
  int32_t a_zero;
  int64_t a_rs;  // as F32Tile's: A read in place, row i's k-quad u at a + i * a_rs + 4 u
  const int32_t *row_sums;  // rows values, read only where b_zero != 0
  int32_t b_zero;
  // As F32Tile's: null, or the tile's tail columns, a k-quad a step.
  const int32_t *b_tail;
  int64_t b_tail_ld;
  // Null, or v goes to bytes of C instead (c read where accumulate, never
  // written); only kernels whose GemmKernel says stores_in_tile are given this.
  const S32Requantize *requantize;
};

// f32 accumulation, for f32, f16 and bf16 operands (packed as f32).
using GemmF32Microkernel = void (*)(int64_t kc, const float *a, const float *b,
                                    const F32Tile &tile);
// f32 accumulation from bf16 pairs (vdpbf16ps): A and B as bf16 in groups of
// two consecutive k ("k-pairs": a[(p / 2) * MR * 2 + i * 2 + p % 2], b likewise
// with NR), kc a multiple of 2 (padded with zeros).
using GemmBf16Microkernel = void (*)(int64_t kc, const uint16_t *a, const uint16_t *b,
                                     const F32Tile &tile);
// s32 accumulation for int8: A as u8 (s8 A is shifted by 128, and so is its
// zero point), B as s8, both in groups of four consecutive k per row or column
// ("k-quads": a[(p / 4) * MR * 4 + i * 4 + p % 4], b likewise with NR), kc a
// multiple of 4 (padded with zeros). Every tier reads this one layout and sums
// exactly, so int8 results are bit-identical across tiers.
using GemmS32Microkernel = void (*)(int64_t kc, const uint8_t *a, const int8_t *b,
                                    const S32Tile &tile);
// The same with the operands' roles turned: A as s8 (a convolution's weights,
// the output channels as rows), B as u8 (s8 B shifted by 128, and its zero
// point), the same k-quads.
using GemmS8U8Microkernel = void (*)(int64_t kc, const int8_t *a, const uint8_t *b,
                                     const S32Tile &tile);

// Scalar tier: plain loops that the compiler vectorises for the x86-64 baseline;
// 4 x 8 keeps the accumulators in its sixteen SSE registers.
void gemm_f32_generic_4x8(int64_t kc, const float *a, const float *b, const F32Tile &tile);
void gemm_s32_generic_4x8(int64_t kc, const uint8_t *a, const int8_t *b, const S32Tile &tile);

// AVX2 + FMA tier: 6 x 16 = twelve ymm accumulators, two B vectors and a
// broadcast A value in the sixteen ymm registers; twelve independent FMA chains
// cover 2 pipes x 4 cycles of latency.
void gemm_f32_avx2_6x16(int64_t kc, const float *a, const float *b, const F32Tile &tile);
// AVX2 tier for int8: 6 x 8 s32 accumulators as 12 ymm of pair sums; operands
// widened to 16 bits and multiplied by vpmaddwd, exact (vpmaddubsw would
// saturate).
void gemm_s32_avx2_6x8(int64_t kc, const uint8_t *a, const int8_t *b, const S32Tile &tile);

// AVX-512 tier: 14 x 32 = twenty-eight zmm accumulators, two B vectors and a
// broadcast in the 32 zmm registers; 28 FMAs per 2 vector loads and 14
// broadcasts, so the load ports never limit the FMA pipes.
void gemm_f32_avx512_14x32(int64_t kc, const float *a, const float *b, const F32Tile &tile);

// AVX512_BF16 kernel for bf16 x bf16: 14 x 32 f32 accumulators, one vdpbf16ps
// (two products per lane) per zmm and k-pair.
void gemm_bf16_avx512bf16_14x32(int64_t kc, const uint16_t *a, const uint16_t *b,
                                const F32Tile &tile);

// AMX kernels (AMX-BF16, AMX-INT8): a 32 x 32 tile of C in four 16 x 16 f32 or
// s32 tiles. B is the k-pair or k-quad panel above (packed: b_rs 0); A is
// always read by rows, row i's k p at a + i * a_rs + p (A in place, or the
// driver's row-major copy of it: gemm_pack.hpp's *_rows), rows past tile.rows
// never read. The int8 pair sums exactly, as every tier does.
void gemm_bf16_amx_32x32(int64_t kc, const uint16_t *a, const uint16_t *b, const F32Tile &tile);
void gemm_s32_amx_32x32(int64_t kc, const uint8_t *a, const int8_t *b, const S32Tile &tile);
void gemm_s8u8s32_amx_32x32(int64_t kc, const int8_t *a, const uint8_t *b, const S32Tile &tile);

// AVX-512 VNNI tier for int8: 14 x 32 s32 accumulators, one EVEX vpdpbusd per
// zmm and k-quad (64 u8 x s8 products summed into 16 lanes without
// saturation). Compiled with -mavx512vnni only, never -mavxvnni: the VEX form
// is an illegal instruction on CPUs with AVX512_VNNI but no AVX-VNNI (Zen 4).
void gemm_s32_avx512vnni_14x32(int64_t kc, const uint8_t *a, const int8_t *b,
                               const S32Tile &tile);
void gemm_s8u8s32_avx512vnni_14x32(int64_t kc, const int8_t *a, const uint8_t *b,
                                   const S32Tile &tile);

}  // namespace dlk::cpu::kernels
