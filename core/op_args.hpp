// Validated, normalised arguments of each op: what a backend receives. core
// builds them from the public descriptors after every rule has been checked, so
// a backend never sees raw user input.
#pragma once

#include <cstdint>

#include "dlk/dlk.h"

namespace dlk::core {

// One operand of a GEMM as a strided view (BLIS-style general strides): element
// (i, j) of matrix b of the batch is at ptr + b * batch_stride + i * rs + j * cs,
// counted in elements. Transposes and layouts are folded into rs and cs, so
// backends see one logical problem: C (m x n) = op(A) (m x k) * op(B) (k x n).
struct MatrixView {
  const void *ptr = nullptr;
  dlk_dtype dtype = DLK_DTYPE_F32;
  int64_t rs = 0;
  int64_t cs = 0;
  int64_t batch_stride = 0;
};

struct GemmArgs {
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
  MatrixView a, b;
  void *c = nullptr;
  dlk_dtype c_type = DLK_DTYPE_F32;
  int64_t rs_c = 0, cs_c = 0, batch_stride_c = 0;
  float alpha = 1.0f, beta = 0.0f;
  int32_t a_zero_point = 0;
  int32_t c_zero_point = 0;
  // Integer GEMM only: the f32 multiplier of column j is alpha * scale_j, one
  // product, precomputed here so every backend rounds it the same way.
  // Empty means alpha for every column (per-tensor scales are folded in too).
  const float *column_multipliers = nullptr;
  float multiplier = 1.0f;  // used when column_multipliers is null
  // Integer GEMM with the operands' roles turned (the CPU backend's NCHW
  // convolutions, which take the output channels as rows; dlk_gemm never sets
  // it): A is s8 (a_zero_point 0), B u8 or s8 with zero point b_zero_point,
  // and column_multipliers hold one multiplier per row of C.
  bool s8_a = false;
  int32_t b_zero_point = 0;
  // The epilogue of the ops that lower to GEMM (dlk_gemm leaves it empty): after
  // alpha, beta and the multiplier, bias[i] (bias_per_row) or bias[j] is added
  // to C's row i or column j, then ReLU (x < 0 ? 0 : x, NaN kept) when relu;
  // s8/u8 C requantize that. The CPU backend fuses both into the tile's store.
  const float *bias = nullptr;
  bool bias_per_row = true;
  bool relu = false;
  // The caller's layout and transposes, for messages only: the views above are
  // what a backend computes with.
  dlk_layout layout = DLK_ROW_MAJOR;
  dlk_transpose trans_a = DLK_NO_TRANSPOSE, trans_b = DLK_NO_TRANSPOSE;
  bool is_integer() const { return a.dtype == DLK_DTYPE_U8 || a.dtype == DLK_DTYPE_S8; }
  // The multiplier of C's element (i, j).
  float multiplier_of(int64_t i, int64_t j) const {
    return column_multipliers ? column_multipliers[s8_a ? i : j] : multiplier;
  }
};

// Convolution in one layout-independent form; strides of src/dst/weights follow
// from the format. oh and ow are derived during validation.
struct Conv2dArgs {
  dlk_conv2d_desc desc{};
  int64_t oh = 0, ow = 0;
  int64_t c_per_group = 0, k_per_group = 0;
  // Forward and backward data/weights use the same shape; pointers by role.
  const void *src = nullptr;
  const void *weights = nullptr;
  const void *diff_dst = nullptr;
  const float *bias = nullptr;
  void *dst = nullptr;
  void *diff_src = nullptr;
  void *diff_weights = nullptr;
  float *diff_bias = nullptr;
  // Integer forward: f32 multiplier per output channel (scale or 1), or one for all.
  const float *channel_multipliers = nullptr;
  float multiplier = 1.0f;
  float multiplier_of(int64_t k) const {
    return channel_multipliers ? channel_multipliers[k] : multiplier;
  }
};

struct Pool2dArgs {
  dlk_pool2d_desc desc{};
  int64_t oh = 0, ow = 0;
  const void *src = nullptr;
  void *dst = nullptr;
  int32_t *argmax = nullptr;
  const int32_t *argmax_in = nullptr;
  const void *diff_dst = nullptr;
  void *diff_src = nullptr;
};

}  // namespace dlk::core
