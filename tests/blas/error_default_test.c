/*
 * An argument error with no handler of the program's own: the system BLAS's
 * xerbla_ and cblas_xerbla report it. Run against the reference BLAS and with
 * LD_PRELOAD=libdlk_blas.so, the output and the exit status must be the same
 * (the reference's xerbla_ prints and returns; its cblas_xerbla prints and exits).
 *   error_default_test sgemm | cblas
 */
#include <stdio.h>
#include <string.h>

#include "blas_prototypes.h"

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  float a[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, b[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, c[9] = {0};
  if (strcmp(argv[1], "sgemm") == 0) {
    const int bad = -1, three = 3;
    const float one = 1.0f, zero = 0.0f;
    sgemm_("N", "N", &bad, &three, &three, &one, a, &three, b, &three, &zero, c, &three);
    printf("sgemm_ returned after the error\n");
    sgemm_("N", "N", &three, &three, &three, &one, a, &three, b, &three, &zero, c, &three);
  } else {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 3, 3, 3, 1.0f, a, 2, b, 3, 0.0f, c, 3);
    printf("cblas_sgemm returned after the error\n");
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 3, 3, 3, 1.0f, a, 3, b, 3, 0.0f, c, 3);
  }
  for (int i = 0; i < 9; ++i) printf("%g ", c[i]);
  printf("\n");
  return 0;
}
