// One single-precision GEMM whose arguments passed the reference rules, run on
// the calling thread's dlk context with the reference BLAS's semantics.
#pragma once

#include "dlk/dlk.h"

namespace dlk::blas {

struct SgemmCall {
  const char *entry;  // "sgemm_" or "cblas_sgemm", for messages
  dlk_layout layout;
  bool trans_a, trans_b;
  int m, n, k;
  float alpha;
  const float *a;
  int lda;
  const float *b;
  int ldb;
  float beta;
  float *c;
  int ldc;
};

// The reference's quick returns first: nothing at all when m or n is 0, or when
// beta is 1 and nothing is added (alpha 0 or k 0); when alpha is 0, C = beta * C
// without reading A or B (dlk_gemm with k = 0, which never reads C when beta is 0).
void run_sgemm(const SgemmCall &call);

}  // namespace dlk::blas
