// The Fortran 77 entry point SGEMM (gfortran's name mangling, 32-bit INTEGER):
// column-major, arguments by reference. The hidden lengths of the character
// arguments that Fortran callers pass are not read: only the first character counts.
#include "blas/error_report.hpp"
#include "blas/export.hpp"
#include "blas/reference_rules.hpp"
#include "blas/sgemm_runner.hpp"

using namespace dlk::blas;

extern "C" DLK_BLAS_EXPORT void sgemm_(const char *transa, const char *transb, const int *m,
                                       const int *n, const int *k, const float *alpha,
                                       const float *a, const int *lda, const float *b,
                                       const int *ldb, const float *beta, float *c,
                                       const int *ldc) {
  const int info = sgemm_argument_error(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc);
  if (info != 0) {
    report_fortran_error("SGEMM ", info);
    return;
  }
  run_sgemm(SgemmCall{"sgemm_", DLK_COL_MAJOR, !same_letter(*transa, 'N'),
                      !same_letter(*transb, 'N'), *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c,
                      *ldc});
}
