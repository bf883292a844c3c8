// dlk's own GEMM kernels around cuBLASLt (gemm_kernels.cu): the staged integer
// route's packing, column sums and epilogue, and C = beta * C for K = 0. Each
// launches on the given stream and returns the launch's error.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "backends/cuda/gemm_plan.hpp"

namespace dlk::cuda {

// One int8 operand read as rows x k elements, element (r, kk) of matrix b at
// src + b * batch_stride + r * stride_r + kk * stride_k, written K-contiguous as
// s8 (u8 shifted by -128) into dst[b][r][0..k_padded) for r < rows_padded, zeros
// past k and past rows.
struct Int8PackArgs {
  const void *src;
  bool is_u8;
  int64_t rows, rows_padded, k, k_padded, batch;
  int64_t stride_r, stride_k, batch_stride;
  int8_t *dst;
};
cudaError_t launch_pack_int8(const Int8PackArgs &args, cudaStream_t stream);

// sums[b * n + j] = sum over kk < k_padded of packed_b[b][j][kk], wrapping.
cudaError_t launch_column_sums(const int8_t *packed_b, int64_t n, int64_t k_padded, int64_t batch,
                               int32_t *sums, cudaStream_t stream);

// C (the caller's strided view) from the s32 product (column-major, leading
// dimension and row count product_rows >= m, per batch; NULL for K = 0), plus
// a_offset * sums[j], by dlk's integer epilogue rules (core/numeric.hpp);
// multipliers on the device, or NULL for `multiplier`.
struct Int8EpilogueArgs {
  Int8Epilogue kind;
  const int32_t *product;
  int64_t product_rows;
  const int32_t *sums;
  int32_t a_offset;
  int64_t m, n, batch;
  void *c;
  int64_t rs_c, cs_c, batch_stride_c;
  const float *multipliers;
  float multiplier, beta;
  int32_t c_zero_point;
};
cudaError_t launch_int8_epilogue(const Int8EpilogueArgs &args, cudaStream_t stream);

// K = 0 on the float types: C = alpha * 0 + beta * C, rounded to C's type.
cudaError_t launch_scale_c(dlk_dtype c_type, void *c, int64_t m, int64_t n, int64_t batch,
                           int64_t rs_c, int64_t cs_c, int64_t batch_stride_c, float alpha,
                           float beta, cudaStream_t stream);

}  // namespace dlk::cuda
