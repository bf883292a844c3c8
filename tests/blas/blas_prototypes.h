/* The two entry points as a program calls them: Fortran sgemm_ (arguments by
 * reference, 32-bit INTEGER) and the reference cblas.h's cblas_sgemm. */
#ifndef DLK_TESTS_BLAS_PROTOTYPES_H
#define DLK_TESTS_BLAS_PROTOTYPES_H

#include <cblas-netlib.h>

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);

#endif
