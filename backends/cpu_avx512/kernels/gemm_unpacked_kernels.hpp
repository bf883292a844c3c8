// The f32 GEMM loops that read A and B where the caller keeps them, without
// packing (gemm_unpacked.cpp says when they run). Each tier's file
// (gemm_unpacked_<tier>.cpp) defines that tier's vector type and includes the
// one set of loops, gemm_unpacked_tier.inc, built with the tier's flags.
#pragma once

#include <cstdint>

namespace dlk::cpu::kernels {

// One f32 product C (m x n) = alpha * A (m x k) * B (k x n) + beta * C on
// strided views (element (i, j) of C at c[i * rs_c + j * cs_c], likewise A and
// B), then the epilogue of the ops that lower to GEMM: + row_bias[i] or
// col_bias[j] where not null, then ReLU (x < 0 ? 0 : x, NaN kept) when relu.
// beta == 0 never reads C; k may be 0 (a and b are then not read).
struct UnpackedF32Gemm {
  int64_t m, n, k;
  const float *a;
  int64_t rs_a, cs_a;
  const float *b;
  int64_t rs_b, cs_b;
  float *c;
  int64_t rs_c, cs_c;
  float alpha, beta;
  const float *row_bias, *col_bias;
  bool relu;
};

// Which dimension the vector lanes run along, and so which operand must be
// contiguous there:
//   axpy: along n; each row of C is a sum of rows of B scaled by A's elements
//         (needs cs_b == 1), register blocks of rows x vectors of C;
//   dot:  along k; each element of C is a dot product of a row of A and a
//         column of B (needs cs_a == 1 and rs_b == 1), register blocks of
//         rows x columns of C, summed across lanes at the end.
// A caller that wants the lanes along m runs axpy on C^T = B^T A^T.
enum class UnpackedForm { axpy, dot };

void gemm_f32_unpacked_generic(const UnpackedF32Gemm &g, UnpackedForm form);
void gemm_f32_unpacked_avx2(const UnpackedF32Gemm &g, UnpackedForm form);
void gemm_f32_unpacked_avx512(const UnpackedF32Gemm &g, UnpackedForm form);

}  // namespace dlk::cpu::kernels
