// C ABI: GEMM.
#include "core/api_guard.hpp"
#include "core/context.hpp"
#include "core/validate.hpp"

using namespace dlk::core;

extern "C" {

void dlk_gemm_desc_init(dlk_gemm_desc *desc, dlk_dtype a_type, dlk_dtype b_type, dlk_dtype c_type,
                        int64_t m, int64_t n, int64_t k) {
  if (!desc) return;
  *desc = dlk_gemm_desc{};
  desc->layout = DLK_ROW_MAJOR;
  desc->trans_a = desc->trans_b = DLK_NO_TRANSPOSE;
  desc->m = m, desc->n = n, desc->k = k;
  desc->a_type = a_type, desc->b_type = b_type, desc->c_type = c_type;
  desc->lda = k > 1 ? k : 1;
  desc->ldb = n > 1 ? n : 1;
  desc->ldc = n > 1 ? n : 1;
  desc->batch_count = 1;
  desc->alpha = 1.0f;
  desc->beta = 0.0f;
  desc->scale_mode = DLK_SCALE_NONE;
}

dlk_status dlk_gemm(dlk_context_t context, const dlk_gemm_desc *desc, const void *a, const void *b,
                    void *c) {
  return api_guard("dlk_gemm", [&] {
    dlk_context &ctx = checked_context("dlk_gemm", context);
    std::vector<float> multipliers;
    const GemmArgs args = validate_gemm(desc, a, b, c, multipliers);
    require_supported("dlk_gemm", ctx, DLK_OP_GEMM, args.a.dtype, args.b.dtype, args.c_type);
    if (args.m == 0 || args.n == 0 || args.batch == 0) return;
    run_op(ctx, summarize_gemm(args), [&] { return ctx.backend->gemm(args); });
  });
}

}  // extern "C"
