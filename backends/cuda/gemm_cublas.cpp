// GEMM on cuBLAS. dlk's strided views (BLIS-style rs/cs) are mapped onto cuBLAS's
// column-major (op, ld) form; a row-major C is computed as C^T = op(B)^T op(A)^T.
#include <climits>

#include "backends/cuda/cuda_backend.hpp"
#include "backends/cuda/cuda_check.hpp"

namespace dlk::cuda {
namespace {

// A logical rows x cols matrix with element strides rs, cs as cuBLAS's (op, ld),
// or false when neither stride is unit (cuBLAS cannot express it).
struct ColumnMajor {
  cublasOperation_t op;
  int64_t ld;
};

bool as_column_major(int64_t rows, int64_t cols, int64_t rs, int64_t cs, ColumnMajor &out) {
  if (rs == 1 && cs >= (rows > 1 ? rows : 1)) {
    out = {CUBLAS_OP_N, cs};
    return true;
  }
  if (cs == 1 && rs >= (cols > 1 ? cols : 1)) {
    out = {CUBLAS_OP_T, rs};
    return true;
  }
  return false;
}

cudaDataType_t cuda_type(dlk_dtype t) {
  switch (t) {
    case DLK_DTYPE_F16: return CUDA_R_16F;
    case DLK_DTYPE_BF16: return CUDA_R_16BF;
    default: return CUDA_R_32F;
  }
}

bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

}  // namespace

bool cublas_gemm_supports(dlk_dtype a, dlk_dtype b, dlk_dtype c) {
  if (a != b) return false;
  if (a == DLK_DTYPE_F32) return c == DLK_DTYPE_F32;
  return (a == DLK_DTYPE_F16 || a == DLK_DTYPE_BF16) && (c == a || c == DLK_DTYPE_F32);
}

core::OpResult cublas_gemm(cublasHandle_t handle, const core::GemmArgs &g) {
  // Column-major problem: C' (m' x n') = op(X) (m' x k) * op(Y) (k x n').
  const bool c_column_major = g.rs_c == 1 && g.cs_c >= (g.m > 1 ? g.m : 1);
  const int64_t m = c_column_major ? g.m : g.n;
  const int64_t n = c_column_major ? g.n : g.m;
  const int64_t ldc = c_column_major ? g.cs_c : g.rs_c;
  const core::MatrixView &x = c_column_major ? g.a : g.b;
  const core::MatrixView &y = c_column_major ? g.b : g.a;
  // Transposing the problem swaps each operand's strides.
  const int64_t x_rs = c_column_major ? x.rs : x.cs, x_cs = c_column_major ? x.cs : x.rs;
  const int64_t y_rs = c_column_major ? y.rs : y.cs, y_cs = c_column_major ? y.cs : y.rs;
  ColumnMajor cx{}, cy{};
  if (!as_column_major(m, g.k, x_rs, x_cs, cx) || !as_column_major(g.k, n, y_rs, y_cs, cy) ||
      !fits_int(m) || !fits_int(n) || !fits_int(g.k) || !fits_int(cx.ld) || !fits_int(cy.ld) ||
      !fits_int(ldc) || !fits_int(g.batch))
    throw core::Error(DLK_STATUS_UNSUPPORTED,
                      "dlk_gemm: cuda: this shape does not fit cuBLAS's 32-bit sizes");
  check_cublas(
      cublasGemmStridedBatchedEx(handle, cx.op, cy.op, static_cast<int>(m), static_cast<int>(n),
                                 static_cast<int>(g.k), &g.alpha, x.ptr, cuda_type(x.dtype),
                                 static_cast<int>(cx.ld), x.batch_stride, y.ptr, cuda_type(y.dtype),
                                 static_cast<int>(cy.ld), y.batch_stride, &g.beta, g.c,
                                 cuda_type(g.c_type), static_cast<int>(ldc), g.batch_stride_c,
                                 static_cast<int>(g.batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
      "cublasGemmStridedBatchedEx");
  return {std::string("cublas:gemm_") + dlk_dtype_name(g.a.dtype), 0};
}

}  // namespace dlk::cuda
