#include "blas/sgemm_runner.hpp"

#include <cstdint>
#include <cstring>

#include "blas/thread_context.hpp"

namespace dlk::blas {
namespace {

// A matrix as the caller stores it: `outer` vectors of `inner` contiguous
// elements, ld apart (columns of a column-major matrix, rows of a row-major one).
struct Stored {
  int64_t outer, inner, ld;
  size_t tight_bytes() const { return static_cast<size_t>(outer * inner) * sizeof(float); }
};

Stored stored(dlk_layout layout, int64_t rows, int64_t cols, int64_t ld) {
  return layout == DLK_COL_MAJOR ? Stored{cols, rows, ld} : Stored{rows, cols, ld};
}

// Device copies hold the matrices packed tight (ld = inner), packed on the host
// and copied in one piece: copying whole leading-dimension spans would read, and
// for C write back, the elements between the vectors, which may belong to another
// thread's block of a larger matrix. Each copy is waited for before the packed
// buffer is used again.
void *stage_in(ThreadContext &tc, DeviceBuffer &buffer, const float *host, const Stored &s,
               const char *entry) {
  void *device = reserve(tc, buffer, s.tight_bytes(), entry);
  tc.packed.resize(static_cast<size_t>(s.outer * s.inner));
  for (int64_t i = 0; i < s.outer; ++i)
    std::memcpy(tc.packed.data() + i * s.inner, host + i * s.ld,
                static_cast<size_t>(s.inner) * sizeof(float));
  if (dlk_memcpy(tc.context, device, tc.packed.data(), s.tight_bytes(),
                 DLK_COPY_HOST_TO_DEVICE) != DLK_STATUS_SUCCESS ||
      dlk_synchronize(tc.context) != DLK_STATUS_SUCCESS)
    fail(entry);
  return device;
}

void stage_out(ThreadContext &tc, const void *device, float *host, const Stored &s,
               const char *entry) {
  tc.packed.resize(static_cast<size_t>(s.outer * s.inner));
  if (dlk_memcpy(tc.context, tc.packed.data(), device, s.tight_bytes(),
                 DLK_COPY_DEVICE_TO_HOST) != DLK_STATUS_SUCCESS ||
      dlk_synchronize(tc.context) != DLK_STATUS_SUCCESS)
    fail(entry);
  for (int64_t i = 0; i < s.outer; ++i)
    std::memcpy(host + i * s.ld, tc.packed.data() + i * s.inner,
                static_cast<size_t>(s.inner) * sizeof(float));
}

void run_on_device(ThreadContext &tc, dlk_gemm_desc desc, const float *a, const float *b,
                   float *c, const char *entry) {
  const Stored sa = stored(desc.layout, desc.trans_a ? desc.k : desc.m,
                           desc.trans_a ? desc.m : desc.k, desc.lda);
  const Stored sb = stored(desc.layout, desc.trans_b ? desc.n : desc.k,
                           desc.trans_b ? desc.k : desc.n, desc.ldb);
  const Stored sc = stored(desc.layout, desc.m, desc.n, desc.ldc);
  const void *da = desc.k > 0 ? stage_in(tc, tc.a, a, sa, entry) : nullptr;
  const void *db = desc.k > 0 ? stage_in(tc, tc.b, b, sb, entry) : nullptr;
  // C is read only when beta is not 0.
  void *dc = desc.beta != 0.0f ? stage_in(tc, tc.c, c, sc, entry)
                               : reserve(tc, tc.c, sc.tight_bytes(), entry);
  desc.lda = sa.inner > 1 ? sa.inner : 1;
  desc.ldb = sb.inner > 1 ? sb.inner : 1;
  desc.ldc = sc.inner;
  if (dlk_gemm(tc.context, &desc, da, db, dc) != DLK_STATUS_SUCCESS) fail(entry);
  stage_out(tc, dc, c, sc, entry);
}

}  // namespace

void run_sgemm(const SgemmCall &call) {
  if (call.m == 0 || call.n == 0) return;
  const bool nothing_added = call.alpha == 0.0f || call.k == 0;
  if (nothing_added && call.beta == 1.0f) return;

  dlk_gemm_desc desc;
  dlk_gemm_desc_init(&desc, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, call.m, call.n,
                     nothing_added ? 0 : call.k);
  desc.layout = call.layout;
  desc.trans_a = call.trans_a ? DLK_TRANSPOSE : DLK_NO_TRANSPOSE;
  desc.trans_b = call.trans_b ? DLK_TRANSPOSE : DLK_NO_TRANSPOSE;
  desc.lda = call.lda;
  desc.ldb = call.ldb;
  desc.ldc = call.ldc;
  desc.alpha = call.alpha;
  desc.beta = call.beta;
  const float *a = nothing_added ? nullptr : call.a;
  const float *b = nothing_added ? nullptr : call.b;

  ThreadContext &tc = thread_context(call.entry);
  if (tc.host_pointers) {
    if (dlk_gemm(tc.context, &desc, a, b, call.c) != DLK_STATUS_SUCCESS) fail(call.entry);
  } else {
    run_on_device(tc, desc, a, b, call.c, call.entry);
  }
}

}  // namespace dlk::blas
