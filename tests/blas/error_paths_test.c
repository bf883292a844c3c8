/*
 * Every argument error of sgemm_ and cblas_sgemm, seen the way the BLAS test
 * programs see them: this program supplies its own xerbla_ and cblas_xerbla,
 * which record the routine and the argument position instead of stopping.
 * As the reference CBLAS's testers do, xerbla_ called while CBLAS's
 * called-from-C flag is up is passed on to cblas_xerbla (position + 1, for the
 * layout argument), and cblas_xerbla renumbers a row-major GEMM's arguments (the
 * reference runs it as the transposed column-major call).
 * Run against the reference BLAS (-lblas) and again with LD_PRELOAD=libdlk_blas.so,
 * the same table must hold: each call reports exactly one error, with the
 * reference's routine name and position, and leaves C untouched.
 * argv[1]: the library sgemm_ and cblas_sgemm must come from.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "blas_prototypes.h"

extern int CBLAS_CallFromC; /* the reference CBLAS's state, in libblas */
extern int RowMajorStrg;

static char reported_routine[32];
static int reported_position, reports;

void cblas_xerbla(CBLAS_INT info, const char *routine, const char *form, ...) {
  (void)form;
  if (RowMajorStrg && strstr(routine, "gemm")) {
    if (info == 4 || info == 5) info = 9 - info;          /* M <-> N */
    else if (info == 9 || info == 11) info = 20 - info;   /* lda <-> ldb */
  }
  /* The reference passes "cblas_sgemm " (from the Fortran name's padding) on
   * some paths: compared without trailing blanks. */
  snprintf(reported_routine, sizeof reported_routine, "%s", routine);
  for (size_t n = strlen(reported_routine); n > 0 && reported_routine[n - 1] == ' '; --n)
    reported_routine[n - 1] = '\0';
  reported_position = info;
  ++reports;
}

void xerbla_(const char *routine, const int *info, size_t length) {
  (void)length;
  char name[16] = "";
  /* The Fortran name is 6 characters, blank-padded, not NUL-terminated. */
  for (int i = 0; i < 6 && routine[i] != ' '; ++i) name[i] = (char)routine[i];
  if (CBLAS_CallFromC) {
    char c_name[32] = "cblas_";
    for (size_t i = 0; name[i]; ++i) c_name[6 + i] = (char)tolower((unsigned char)name[i]);
    cblas_xerbla(*info + 1, c_name, "");
    return;
  }
  snprintf(reported_routine, sizeof reported_routine, "%s", name);
  reported_position = *info;
  ++reports;
}

static int failures;

static float c[64];
static const float kUntouched = 42.0f;

static void begin(void) {
  reports = 0;
  reported_position = 0;
  reported_routine[0] = '\0';
  for (int i = 0; i < 64; ++i) c[i] = kUntouched;
}

static void expect(const char *what, const char *routine, int position) {
  if (reports != 1 || strcmp(reported_routine, routine) != 0 || reported_position != position) {
    fprintf(stderr, "FAIL %s: expected %s position %d; got %d report(s), last %s position %d\n",
            what, routine, position, reports, reported_routine, reported_position);
    ++failures;
  }
  for (int i = 0; i < 64; ++i)
    if (c[i] != kUntouched) {
      fprintf(stderr, "FAIL %s: C was written\n", what);
      ++failures;
      break;
    }
}

static const float a[64], b[64];

static void fortran(const char *what, const char *ta, const char *tb, int m, int n, int k, int lda,
                    int ldb, int ldc, int position) {
  const float alpha = 1.0f, beta = 0.0f;
  begin();
  sgemm_(ta, tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
  expect(what, "SGEMM", position);
}

static void cblas(const char *what, int layout, int ta, int tb, int m, int n, int k, int lda,
                  int ldb, int ldc, int position) {
  begin();
  cblas_sgemm((enum CBLAS_LAYOUT)layout, (enum CBLAS_TRANSPOSE)ta, (enum CBLAS_TRANSPOSE)tb, m, n,
              k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
  expect(what, "cblas_sgemm", position);
}

static void check_provider(const char *name) {
  void *entries[] = {(void *)sgemm_, (void *)cblas_sgemm};
  for (int i = 0; i < 2; ++i) {
    Dl_info info;
    if (!dladdr(entries[i], &info) || !info.dli_fname || !strstr(info.dli_fname, name)) {
      fprintf(stderr, "FAIL %s does not come from %s\n", i ? "cblas_sgemm" : "sgemm_", name);
      ++failures;
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s PROVIDER\n", argv[0]);
    return 2;
  }
  check_provider(argv[1]);
  const int reference_run = strstr(argv[1], "dlk") == NULL;
  const int N = CblasNoTrans, T = CblasTrans, C = CblasConjTrans, col = CblasColMajor,
            row = CblasRowMajor;

  /* sgemm_: the first broken rule in argument order wins. */
  fortran("transa X", "X", "N", 2, 2, 2, 2, 2, 2, 1);
  fortran("transa X and m < 0", "X", "N", -1, 2, 2, 2, 2, 2, 1);
  fortran("transb X", "N", "x", 2, 2, 2, 2, 2, 2, 2);
  fortran("m < 0", "n", "t", -1, 2, 2, 2, 2, 2, 3);
  fortran("m, n < 0", "c", "N", -1, -1, 2, 2, 2, 2, 3);
  fortran("n < 0", "N", "N", 2, -1, 2, 2, 2, 2, 4);
  fortran("k < 0", "N", "N", 2, 2, -1, 2, 2, 2, 5);
  fortran("lda < m", "N", "N", 3, 2, 2, 2, 2, 3, 8);
  fortran("lda < k (A transposed)", "T", "N", 2, 2, 3, 2, 3, 2, 8);
  fortran("lda < 1 (m = 0)", "N", "N", 0, 2, 2, 0, 2, 1, 8);
  fortran("ldb < k", "N", "N", 2, 2, 3, 2, 2, 2, 10);
  fortran("ldb < n (B transposed)", "N", "C", 2, 3, 2, 2, 2, 2, 10);
  fortran("lda and ldb bad", "N", "N", 3, 2, 3, 2, 2, 3, 8);
  fortran("ldc < m", "N", "N", 3, 2, 2, 3, 2, 2, 13);
  fortran("ldc < 1 (m = 0)", "N", "N", 0, 2, 2, 1, 2, 0, 13);

  /* cblas_sgemm: positions in its own argument list, layout first. */
  cblas("layout invalid", 0, N, N, 2, 2, 2, 2, 2, 2, 1);
  cblas("layout invalid, m < 0", 103, N, N, -1, 2, 2, 2, 2, 2, 1);
  cblas("col TransA invalid", col, 0, N, 2, 2, 2, 2, 2, 2, 2);
  cblas("row TransA invalid", row, 114, N, 2, 2, 2, 2, 2, 2, 2);
  cblas("col TransB invalid", col, N, 110, 2, 2, 2, 2, 2, 2, 3);
  /* Debian's reference (LAPACK 3.11) reports 2 here, the position of TransA, by a
   * slip in its row-major branch; later releases report 3, as the CBLAS testers
   * expect, and so does dlk. */
  cblas("row TransB invalid", row, T, 0, 2, 2, 2, 2, 2, 2, reference_run ? 2 : 3);
  cblas("col M < 0", col, N, N, -1, 2, 2, 2, 2, 2, 4);
  cblas("row M < 0", row, N, N, -1, 2, 2, 2, 2, 2, 4);
  cblas("col N < 0", col, N, T, 2, -1, 2, 2, 2, 2, 5);
  cblas("row N < 0", row, C, N, 2, -1, 2, 2, 2, 2, 5);
  /* Row-major is checked as the transposed call: N before M, ldb before lda. */
  cblas("col M, N < 0", col, N, N, -1, -1, 2, 2, 2, 2, 4);
  cblas("row M, N < 0", row, N, N, -1, -1, 2, 2, 2, 2, 5);
  cblas("col K < 0", col, N, N, 2, 2, -1, 2, 2, 2, 6);
  cblas("row K < 0", row, N, N, 2, 2, -1, 2, 2, 2, 6);
  cblas("col lda < M", col, N, N, 3, 2, 2, 2, 2, 3, 9);
  cblas("col lda < K (A transposed)", col, T, N, 2, 2, 3, 2, 3, 2, 9);
  cblas("row lda < K", row, N, N, 2, 2, 3, 2, 2, 2, 9);
  cblas("row lda < M (A transposed)", row, T, N, 3, 2, 2, 2, 2, 2, 9);
  cblas("col ldb < K", col, N, N, 2, 2, 3, 2, 2, 2, 11);
  cblas("col ldb < N (B transposed)", col, N, T, 2, 3, 2, 2, 2, 2, 11);
  cblas("row ldb < N", row, N, N, 2, 3, 2, 2, 2, 3, 11);
  cblas("row ldb < K (B transposed)", row, N, C, 2, 2, 3, 3, 2, 2, 11);
  cblas("col lda and ldb bad", col, N, N, 3, 2, 3, 2, 2, 3, 9);
  cblas("row lda and ldb bad", row, N, N, 2, 3, 3, 2, 2, 3, 11);
  cblas("col ldc < M", col, N, N, 3, 2, 2, 3, 2, 2, 14);
  cblas("row ldc < N", row, N, N, 2, 3, 2, 2, 3, 2, 14);
  cblas("row ldc < 1 (N = 0)", row, N, N, 2, 0, 2, 2, 1, 0, 14);

  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
