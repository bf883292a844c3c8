// The CBLAS entry point cblas_sgemm, with the reference CBLAS's enum values and
// checks: the layout and transposes in C (positions 1 to 3), the rest by the
// Fortran rules of the call the reference maps it onto. Row-major runs on dlk as
// row-major; the mapping matters only for which error is found first.
#include "blas/error_report.hpp"
#include "blas/export.hpp"
#include "blas/reference_rules.hpp"
#include "blas/sgemm_runner.hpp"

using namespace dlk::blas;

namespace {

// Values of the reference cblas.h (CBLAS_LAYOUT, CBLAS_TRANSPOSE).
enum : int { kRowMajor = 101, kColMajor = 102 };
enum : int { kNoTrans = 111, kTrans = 112, kConjTrans = 113 };

// The Fortran letter of a CBLAS transpose, or 0 for a value outside the enum.
char transpose_letter(int t) {
  switch (t) {
    case kNoTrans: return 'N';
    case kTrans: return 'T';
    case kConjTrans: return 'C';
    default: return 0;
  }
}

}  // namespace

extern "C" DLK_BLAS_EXPORT void cblas_sgemm(int layout, int trans_a, int trans_b, int m, int n,
                                            int k, float alpha, const float *a, int lda,
                                            const float *b, int ldb, float beta, float *c,
                                            int ldc) {
  if (layout != kColMajor && layout != kRowMajor) {
    report_cblas_error(false, 1, "Illegal layout setting, %d\n", layout);
    return;
  }
  const bool row_major = layout == kRowMajor;
  const char ta = transpose_letter(trans_a), tb = transpose_letter(trans_b);
  if (!ta) {
    report_cblas_error(row_major, 2, "Illegal TransA setting, %d\n", trans_a);
    return;
  }
  if (!tb) {
    report_cblas_error(row_major, 3, "Illegal TransB setting, %d\n", trans_b);
    return;
  }
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
  const int info = row_major ? sgemm_argument_error(tb, ta, n, m, k, ldb, lda, ldc)
                             : sgemm_argument_error(ta, tb, m, n, k, lda, ldb, ldc);
  if (info != 0) {
    report_cblas_fortran_error(row_major, info);
    return;
  }
  run_sgemm(SgemmCall{"cblas_sgemm", row_major ? DLK_ROW_MAJOR : DLK_COL_MAJOR, ta != 'N',
                      tb != 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc});
}
