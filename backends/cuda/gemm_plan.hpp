// How one dlk GEMM becomes cuBLASLt calls and dlk's own kernels: pure host logic
// with no CUDA header, so that it is unit-tested on machines without a GPU
// (tests/cuda/gemm_plan_test.cpp).
//
// cuBLASLt sees column-major matrices with a transpose flag and a leading
// dimension. dlk's views (BLIS-style rs/cs strides) map onto that directly for the
// float types; a row-major C is computed as C^T = op(B)^T op(A)^T. Integer GEMMs
// whose operands already have cuBLASLt's int8 form (A transposed, B not, K
// contiguous; m, k, leading dimensions and pointers multiples of 4: what its
// int8 tensor-core kernels require) go straight to it; all others are staged: A
// and B packed K-contiguous as s8 (u8 A shifted by -128; m and K padded to 4 with
// zeros), s32 product in scratch, then dlk's epilogue kernel adds the zero-point
// correction and writes C.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/op_args.hpp"

namespace dlk::cuda {

enum class GemmCompute { f32, tf32, s32 };
enum class GemmRoute { lt_direct, int8_staged };

// What writes C in the staged integer route.
enum class Int8Epilogue { store_s32, accumulate_s32, dequantize_f32, requantize_s8, requantize_u8 };

// One operand as cuBLASLt stores it: a column-major rows x cols matrix with
// leading dimension ld; transposed says whether the product uses it as op = T.
struct LtMatrix {
  dlk_dtype dtype = DLK_DTYPE_F32;
  bool transposed = false;
  int64_t rows = 0, cols = 0, ld = 0, batch_stride = 0;
};

struct GemmPlan {
  GemmRoute route = GemmRoute::lt_direct;
  GemmCompute compute = GemmCompute::f32;
  bool swapped = false;  // computed as C^T = op(B)^T op(A)^T
  // The column-major problem cuBLASLt solves: D (m x n) = op(a) (m x k) op(b) (k x n).
  int64_t m = 0, n = 0, k = 0, batch = 1;
  LtMatrix a, b, c;
  // Staged integer route: m and K rounded up to 4 (zero padding adds nothing; the
  // product has m_padded rows, of which the first m are C's), and the constant
  // that turns the s8 product into the zero-pointed one:
  // acc(i, j) = product(i, j) + a_offset * sum_k B(k, j).
  int64_t m_padded = 0, k_padded = 0;
  int32_t a_offset = 0;
  Int8Epilogue epilogue = Int8Epilogue::store_s32;
  // Empty when cuBLASLt can take the problem; otherwise why not.
  std::string unsupported;
};

GemmPlan plan_gemm(const core::GemmArgs &args, bool allow_tf32);

// The largest power of two (up to 256) dividing the address: cuBLASLt's
// heuristics assume 256-byte alignment unless told less.
uint32_t pointer_alignment(const void *ptr);

// Everything cuBLASLt's heuristic depends on, so its answer is cached per shape.
struct GemmKey {
  GemmCompute compute = GemmCompute::f32;
  LtMatrix a, b, c;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  dlk_dtype d_type = DLK_DTYPE_F32;  // of the product cuBLASLt writes
  bool beta_nonzero = false;
  uint32_t align_a = 0, align_b = 0, align_c = 0;
  bool operator==(const GemmKey &o) const;
};

struct GemmKeyHash {
  size_t operator()(const GemmKey &key) const;
};

// The key of the cuBLASLt call a plan makes on these pointers (for the staged
// route, cuBLASLt's operands are the packed scratch buffers).
GemmKey gemm_key(const GemmPlan &plan, const core::GemmArgs &args, const void *a, const void *b,
                 const void *c);

}  // namespace dlk::cuda
