// The store of an integer GEMM's s32 accumulator into s32, f32, s8 or u8 C, as a
// kernel per tier (the scalar rule is store_s32_tile in gemm_epilogue.cpp; a
// tier without a kernel uses it). Per element, u8 C through the scalar rule
// took 4.3x the time of the s32 GEMM itself on ResNet-50's res2b_1x1a
// (docs/conv_pool_speed.md); s32 C in a convolution's NCHW dst (column-major)
// took about as long as the micro-kernel on res2b_1x1a.
#pragma once

#include <cstdint>

#include "dlk/dlk.h"

namespace dlk::cpu::kernels {

// c(i, j) = rule(acc[i * ld + j]) for i < rows, j < cols, with rule dlk.h's
// (store_s32_tile, gemm_epilogue.hpp): v = acc x multiplier_i or _j, v = fma(beta,
// C - zero_point, v) where beta != 0 (f32 C: fma(beta, C, v)), + bias, ReLU,
// then for s8/u8 C round half to even, add zero_point and saturate. C is
// element (0, 0) of the tile; one of rs_c and cs_c is 1.
struct S32TileStore {
  const int32_t *acc;
  int64_t ld;
  int64_t rows, cols;
  void *c;
  int64_t rs_c, cs_c;
  dlk_dtype c_type;  // s32 (C = acc, or C + acc modulo 2^32 where beta is 1,
                     // then ReLU; no scale or bias), f32, s8 or u8
  float beta;
  float multiplier;
  const float *column_multipliers;  // cols values, or null
  const float *row_multipliers;     // rows values (C row-major), or null; both null: multiplier
  const float *row_bias;            // rows values, or null
  const float *col_bias;            // cols values, or null
  bool relu;
  int32_t zero_point;
};

using S32TileStoreKernel = void (*)(const S32TileStore &store);

// AVX-512 (F, BW, VL): 16 elements a step along C's contiguous dimension; a
// column-major C (a convolution's NCHW dst) is read from the row-major
// accumulator 16 x 16 at a time through a register transpose.
void gemm_store_s32_avx512(const S32TileStore &store);

}  // namespace dlk::cpu::kernels
