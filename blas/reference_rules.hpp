// The reference BLAS's rules for SGEMM's arguments, as the reference checks them:
// in argument order, the first broken rule wins, and its position is what xerbla
// reports. cblas_sgemm maps onto this same Fortran call (row-major as the
// transposed column-major product), so both entry points share it.
#pragma once

namespace dlk::blas {

// LSAME: the first character alone, either case.
bool same_letter(char given, char expected);

// 0 when every argument is valid, else the Fortran position of the first one that
// is not: 1 transa, 2 transb, 3 m, 4 n, 5 k, 8 lda, 10 ldb, 13 ldc.
int sgemm_argument_error(char transa, char transb, int m, int n, int k, int lda, int ldb,
                         int ldc);

}  // namespace dlk::blas
