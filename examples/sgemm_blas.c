/* A program written for any BLAS, knowing nothing of dlk: one cblas_sgemm and
 * one Fortran sgemm_. Built against the system BLAS, it runs its GEMMs on dlk
 * with LD_PRELOAD=libdlk_blas.so (see README, "Using dlk from your framework"):
 *   cc examples/sgemm_blas.c -o sgemm_blas -lblas
 *   LD_PRELOAD=/opt/dlk/lib/libdlk_blas.so DLK_VERBOSE=1 ./sgemm_blas */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);

int main(void) {
  enum { N = 256 };
  float *a = malloc(sizeof(float) * N * N), *b = malloc(sizeof(float) * N * N),
        *c = malloc(sizeof(float) * N * N);
  for (int i = 0; i < N * N; ++i) a[i] = (float)(i % 7) - 3.0f, b[i] = (float)(i % 5) - 2.0f;

  /* C = A * B, row-major */
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, a, N, b, N, 0.0f, c, N);
  double sum = 0;
  for (int i = 0; i < N * N; ++i) sum += c[i];
  printf("cblas_sgemm: sum of C = %.1f\n", sum);

  /* C = 0.5 * A^T * B + C, column-major */
  const int n = N;
  const float half = 0.5f, one = 1.0f;
  sgemm_("T", "N", &n, &n, &n, &half, a, &n, b, &n, &one, c, &n);
  sum = 0;
  for (int i = 0; i < N * N; ++i) sum += c[i];
  printf("sgemm_: sum of C = %.1f\n", sum);

  free(a), free(b), free(c);
  return 0;
}
