/*
 * A program written for the system BLAS (linked with -lblas, the reference
 * implementation), run once as it is and once with LD_PRELOAD=libdlk_blas.so:
 *   drop_in_test --write FILE   --provider NAME   results of every call go to FILE
 *   drop_in_test --compare FILE --provider NAME   results must match FILE's
 * Every run also checks each result against a double-precision product (the f32
 * bound K * eps), the reference's quick returns and special values exactly, the
 * elements between C's columns (or rows) untouched, and calls from several threads
 * at once. --provider names the library sgemm_ and cblas_sgemm must come from.
 * The last line says how many GEMMs had work to do (the ones dlk's verbose mode
 * prints a line for).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_prototypes.h"

enum entry { FORTRAN, CBLAS_COL, CBLAS_ROW };
static const char *const entry_names[] = {"sgemm_", "cblas_sgemm col", "cblas_sgemm row"};

struct problem {
  enum entry entry;
  char ta, tb; /* 'N', 'T' or 'C' */
  int m, n, k, pad;
  float alpha, beta;
};

static int failures;
static long calls_with_work;
static FILE *results_file;
static int comparing;

static void fail(const struct problem *p, const char *what) {
  if (failures++ < 20)
    fprintf(stderr, "FAIL %s %c%c m=%d n=%d k=%d pad=%d alpha=%g beta=%g: %s\n",
            entry_names[p->entry], p->ta, p->tb, p->m, p->n, p->k, p->pad, p->alpha, p->beta,
            what);
}

static uint32_t rng_state = 12345;
static float next_value(void) {
  rng_state = rng_state * 1664525u + 1013904223u;
  return (float)((rng_state >> 8) % 2001) / 1000.0f - 1.0f;
}

/* Stored matrix: `outer` vectors of `inner` elements, ld apart (column-major:
 * columns; row-major: rows). */
struct stored {
  int outer, inner, ld;
};
static struct stored stored_of(int col_major, int rows, int cols, int pad) {
  struct stored s;
  s.outer = col_major ? cols : rows;
  s.inner = col_major ? rows : cols;
  s.ld = (s.inner > 1 ? s.inner : 1) + pad;
  return s;
}
static size_t stored_size(struct stored s) { return (size_t)(s.outer > 0 ? s.outer : 1) * s.ld; }

/* Element (i, j) of op(X) for X stored as s, transposed when t != 'N'. */
static double element(const float *x, struct stored s, int col_major, char t, int i, int j) {
  const int r = t == 'N' ? i : j, c = t == 'N' ? j : i;
  return col_major ? x[r + (size_t)c * s.ld] : x[(size_t)r * s.ld + c];
}

static void call_gemm(const struct problem *p, const float *a, int lda, const float *b, int ldb,
                      float *c, int ldc) {
  const enum CBLAS_TRANSPOSE cta = p->ta == 'N' ? CblasNoTrans : p->ta == 'T' ? CblasTrans : CblasConjTrans;
  const enum CBLAS_TRANSPOSE ctb = p->tb == 'N' ? CblasNoTrans : p->tb == 'T' ? CblasTrans : CblasConjTrans;
  switch (p->entry) {
    case FORTRAN:
      sgemm_(&p->ta, &p->tb, &p->m, &p->n, &p->k, &p->alpha, a, &lda, b, &ldb, &p->beta, c, &ldc);
      break;
    case CBLAS_COL:
      cblas_sgemm(CblasColMajor, cta, ctb, p->m, p->n, p->k, p->alpha, a, lda, b, ldb, p->beta, c,
                  ldc);
      break;
    case CBLAS_ROW:
      cblas_sgemm(CblasRowMajor, cta, ctb, p->m, p->n, p->k, p->alpha, a, lda, b, ldb, p->beta, c,
                  ldc);
      break;
  }
}

static const float kGap = -777.0f; /* fills the elements between stored vectors */

/* One general problem: checked against a double product, and written to or
 * compared with the results file. */
static void run_problem(const struct problem *p) {
  const int col = p->entry != CBLAS_ROW;
  const struct stored sa = stored_of(col, p->ta == 'N' ? p->m : p->k, p->ta == 'N' ? p->k : p->m, p->pad);
  const struct stored sb = stored_of(col, p->tb == 'N' ? p->k : p->n, p->tb == 'N' ? p->n : p->k, p->pad);
  const struct stored sc = stored_of(col, p->m, p->n, p->pad);
  float *a = malloc(stored_size(sa) * sizeof(float));
  float *b = malloc(stored_size(sb) * sizeof(float));
  float *c = malloc(stored_size(sc) * sizeof(float));
  float *c0 = malloc(stored_size(sc) * sizeof(float));
  for (size_t i = 0; i < stored_size(sa); ++i) a[i] = next_value();
  for (size_t i = 0; i < stored_size(sb); ++i) b[i] = next_value();
  for (int o = 0; o < sc.outer; ++o)
    for (int i = 0; i < sc.ld; ++i) c[(size_t)o * sc.ld + i] = i < sc.inner ? next_value() : kGap;
  memcpy(c0, c, stored_size(sc) * sizeof(float));

  call_gemm(p, a, sa.ld, b, sb.ld, c, sc.ld);
  if (p->m > 0 && p->n > 0 && !((p->alpha == 0.0f || p->k == 0) && p->beta == 1.0f))
    ++calls_with_work;

  const double eps = 5.96e-8; /* 2^-24 */
  for (int i = 0; i < p->m; ++i) {
    for (int j = 0; j < p->n; ++j) {
      double sum = 0, magnitude = 0;
      for (int l = 0; l < p->k; ++l) {
        const double x = element(a, sa, col, p->ta, i, l) * element(b, sb, col, p->tb, l, j);
        sum += x;
        magnitude += fabs(x);
      }
      const size_t at = col ? i + (size_t)j * sc.ld : (size_t)i * sc.ld + j;
      double expected = p->alpha * sum, bound = fabs(p->alpha) * magnitude;
      if (p->beta != 0.0f) {
        expected += p->beta * (double)c0[at];
        bound += fabs(p->beta * (double)c0[at]);
      }
      bound = (p->k + 2) * eps * bound + 1e-30;
      if (!(fabs(c[at] - expected) <= bound)) fail(p, "C beyond the f32 bound of the double product");
      if (results_file && !comparing) {
        fwrite(&c[at], sizeof(float), 1, results_file);
      } else if (results_file) {
        float other;
        if (fread(&other, sizeof(float), 1, results_file) != 1) {
          fail(p, "results file too short");
        } else if (!(fabs((double)c[at] - other) <= 2 * bound)) {
          fail(p, "C differs from the reference BLAS's result beyond the f32 bound");
        }
      }
    }
  }
  for (int o = 0; o < sc.outer; ++o)
    for (int i = sc.inner; i < sc.ld; ++i)
      if (c[(size_t)o * sc.ld + i] != kGap) fail(p, "an element between C's vectors was written");
  free(a), free(b), free(c), free(c0);
}

static void run_general_problems(void) {
  static const char trans[] = {'N', 'T', 'C'};
  static const int shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {17, 13, 31}, {64, 33, 65}, {3, 40, 1}};
  static const float scalars[][2] = {{1.0f, 0.0f}, {-0.5f, 1.0f}, {1.5f, 0.75f}};
  for (int e = FORTRAN; e <= CBLAS_ROW; ++e)
    for (int ta = 0; ta < 3; ++ta)
      for (int tb = 0; tb < 3; ++tb)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
          for (size_t v = 0; v < sizeof scalars / sizeof scalars[0]; ++v) {
            const struct problem p = {(enum entry)e, trans[ta], trans[tb], shapes[s][0],
                                      shapes[s][1], shapes[s][2], (int)((s + v) % 3),
                                      scalars[v][0], scalars[v][1]};
            run_problem(&p);
          }
}

static int same_bits(float x, float y) { return memcmp(&x, &y, sizeof x) == 0; }

/* The reference's special cases, checked exactly on a 3 x 2 column-major C. */
static void run_special_cases(void) {
  const float nan = NAN;
  float a[6], b[6], c[6];
  const int three = 3, two = 2, zero = 0;
  float alpha, beta;
  struct problem p = {FORTRAN, 'N', 'N', 3, 2, 2, 0, 0.0f, 1.0f};

  /* m or n == 0: nothing is read or written. */
  for (int i = 0; i < 6; ++i) c[i] = nan;
  alpha = 1.0f, beta = 0.0f;
  sgemm_("N", "N", &zero, &two, &two, &alpha, NULL, &three, NULL, &two, &beta, c, &three);
  sgemm_("N", "N", &three, &zero, &two, &alpha, NULL, &three, NULL, &two, &beta, c, &three);
  for (int i = 0; i < 6; ++i)
    if (!isnan(c[i])) fail(&p, "m or n = 0 wrote C");

  /* alpha == 0 or k == 0 with beta == 1: C untouched, A and B not read. */
  for (int i = 0; i < 6; ++i) c[i] = (float)i + 0.25f;
  c[5] = nan;
  alpha = 0.0f, beta = 1.0f;
  sgemm_("N", "N", &three, &two, &two, &alpha, NULL, &three, NULL, &two, &beta, c, &three);
  alpha = 2.0f;
  sgemm_("N", "N", &three, &two, &zero, &alpha, NULL, &three, NULL, &two, &beta, c, &three);
  for (int i = 0; i < 5; ++i)
    if (c[i] != (float)i + 0.25f) fail(&p, "alpha 0 or k 0 with beta 1 changed C");
  if (!isnan(c[5])) fail(&p, "alpha 0 with beta 1 changed a NaN of C");

  /* alpha == 0: C = beta * C exactly, NaN and infinity in A and B never read. */
  for (int i = 0; i < 6; ++i) a[i] = nan, b[i] = INFINITY, c[i] = (float)i - 2.5f;
  alpha = 0.0f, beta = 0.75f;
  sgemm_("N", "N", &three, &two, &two, &alpha, a, &three, b, &two, &beta, c, &three);
  for (int i = 0; i < 6; ++i)
    if (!same_bits(c[i], 0.75f * ((float)i - 2.5f))) fail(&p, "alpha 0: C is not beta * C");
  ++calls_with_work;

  /* alpha == 0, beta == 0: C = 0 even where it held NaN. */
  for (int i = 0; i < 6; ++i) c[i] = nan;
  beta = 0.0f;
  sgemm_("N", "N", &three, &two, &two, &alpha, a, &three, b, &two, &beta, c, &three);
  for (int i = 0; i < 6; ++i)
    if (!same_bits(c[i], 0.0f)) fail(&p, "alpha 0, beta 0: C is not +0");
  ++calls_with_work;

  /* k == 0: C = beta * C, by value: the sign of a zero is outside the f32
   * contract (the reference gives -2 * +0 = -0, a sum 0 + beta * C gives +0). */
  for (int i = 0; i < 6; ++i) c[i] = (float)i;
  alpha = 1.0f, beta = -2.0f;
  sgemm_("N", "N", &three, &two, &zero, &alpha, NULL, &three, NULL, &two, &beta, c, &three);
  for (int i = 0; i < 6; ++i)
    if (c[i] != -2.0f * (float)i) fail(&p, "k 0: C is not beta * C");
  ++calls_with_work;

  /* beta == 0: C is not read, so NaN in C does not propagate. */
  for (int i = 0; i < 6; ++i) a[i] = 1.0f, b[i] = 2.0f, c[i] = nan;
  alpha = 1.0f, beta = 0.0f;
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 3, 2, 2, alpha, a, 3, b, 2, beta, c, 3);
  for (int i = 0; i < 6; ++i)
    if (c[i] != 4.0f) fail(&p, "beta 0: C was read");
  ++calls_with_work;
}

/* Calls from several threads at once: each thread's results must equal, bit for
 * bit, the same calls made one after another. */
enum { kThreads = 4, kCallsPerThread = 8, kDim = 48 };
struct thread_work {
  float a[kDim * kDim], b[kDim * kDim];
  float c[kCallsPerThread][kDim * kDim];
};

static void thread_calls(struct thread_work *w) {
  const float alpha = 1.0f, beta = 0.0f;
  const int n = kDim;
  for (int i = 0; i < kCallsPerThread; ++i) {
    if (i % 2)
      sgemm_(i % 4 == 1 ? "T" : "N", "N", &n, &n, &n, &alpha, w->a, &n, w->b, &n, &beta, w->c[i], &n);
    else
      cblas_sgemm(CblasRowMajor, CblasNoTrans, i % 4 == 2 ? CblasTrans : CblasNoTrans, n, n, n,
                  alpha, w->a, n, w->b, n, beta, w->c[i], n);
  }
}
static void *thread_main(void *arg) {
  thread_calls(arg);
  return NULL;
}

static void run_threads(void) {
  static struct thread_work work[kThreads], serial;
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kDim * kDim; ++i) work[t].a[i] = next_value(), work[t].b[i] = next_value();
  pthread_t threads[kThreads];
  for (int t = 0; t < kThreads; ++t) pthread_create(&threads[t], NULL, thread_main, &work[t]);
  for (int t = 0; t < kThreads; ++t) pthread_join(threads[t], NULL);
  calls_with_work += kThreads * kCallsPerThread;
  const struct problem p = {FORTRAN, 'N', 'N', kDim, kDim, kDim, 0, 1.0f, 0.0f};
  for (int t = 0; t < kThreads; ++t) {
    memcpy(serial.a, work[t].a, sizeof serial.a);
    memcpy(serial.b, work[t].b, sizeof serial.b);
    thread_calls(&serial);
    calls_with_work += kCallsPerThread;
    if (memcmp(serial.c, work[t].c, sizeof serial.c) != 0)
      fail(&p, "a thread's results differ from the same calls made alone");
  }
}

static void check_provider(const char *name) {
  void *entries[] = {(void *)sgemm_, (void *)cblas_sgemm};
  for (int i = 0; i < 2; ++i) {
    Dl_info info;
    if (!dladdr(entries[i], &info) || !info.dli_fname || !strstr(info.dli_fname, name)) {
      fprintf(stderr, "FAIL %s comes from %s, not %s\n", i ? "cblas_sgemm" : "sgemm_",
              info.dli_fname ? info.dli_fname : "?", name);
      ++failures;
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 5 || (strcmp(argv[1], "--write") && strcmp(argv[1], "--compare")) ||
      strcmp(argv[3], "--provider")) {
    fprintf(stderr, "usage: %s --write|--compare FILE --provider NAME\n", argv[0]);
    return 2;
  }
  comparing = strcmp(argv[1], "--compare") == 0;
  results_file = fopen(argv[2], comparing ? "rb" : "wb");
  if (!results_file) {
    perror(argv[2]);
    return 2;
  }
  check_provider(argv[4]);
  run_general_problems();
  run_special_cases();
  run_threads();
  if (comparing && fgetc(results_file) != EOF) {
    fprintf(stderr, "FAIL the results file holds more results than this run made\n");
    ++failures;
  }
  fclose(results_file);
  printf("%d failures\n", failures);
  printf("GEMM calls with work: %ld\n", calls_with_work);
  return failures ? 1 : 0;
}
