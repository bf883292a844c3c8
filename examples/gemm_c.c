/* C = A * B through the C ABI on the default backend (DLK_BACKEND, else auto),
 * with every status checked as a caller of a C library should. */
#include <stdio.h>
#include <stdlib.h>

#include <dlk/dlk.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    dlk_status s_ = (call);                                                      \
    if (s_ != DLK_STATUS_SUCCESS) {                                              \
      fprintf(stderr, "%s failed: %s\n", dlk_status_name(s_), dlk_last_error()); \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

int main(void) {
  enum { M = 2, N = 3, K = 4 };
  const float a[M * K] = {1, 2, 3, 4, 5, 6, 7, 8};
  const float b[K * N] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
  float c[M * N];

  dlk_context_t ctx;
  CHECK(dlk_context_create(&ctx, NULL));
  dlk_context_info info;
  CHECK(dlk_context_get_info(ctx, &info));
  printf("backend %s on %s (%s, %d threads)\n", info.backend, info.device, info.isa,
         info.num_threads);

  void *da, *db, *dc;
  CHECK(dlk_malloc(ctx, sizeof a, &da));
  CHECK(dlk_malloc(ctx, sizeof b, &db));
  CHECK(dlk_malloc(ctx, sizeof c, &dc));
  CHECK(dlk_memcpy(ctx, da, a, sizeof a, DLK_COPY_HOST_TO_DEVICE));
  CHECK(dlk_memcpy(ctx, db, b, sizeof b, DLK_COPY_HOST_TO_DEVICE));

  dlk_gemm_desc desc;
  dlk_gemm_desc_init(&desc, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, M, N, K);
  CHECK(dlk_gemm(ctx, &desc, da, db, dc));
  CHECK(dlk_memcpy(ctx, c, dc, sizeof c, DLK_COPY_DEVICE_TO_HOST));

  const float expected[M * N] = {5, 6, 7, 13, 14, 15};
  int wrong = 0;
  for (int i = 0; i < M * N; ++i) wrong += c[i] != expected[i];
  printf("C = [%g %g %g; %g %g %g]: %s\n", c[0], c[1], c[2], c[3], c[4], c[5],
         wrong ? "WRONG" : "ok");

  CHECK(dlk_free(ctx, da));
  CHECK(dlk_free(ctx, db));
  CHECK(dlk_free(ctx, dc));
  CHECK(dlk_context_destroy(ctx));
  return wrong ? 1 : 0;
}
