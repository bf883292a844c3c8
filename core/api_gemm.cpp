// C ABI: GEMM.
#include "core/api_guard.hpp"
#include "core/context.hpp"
#include "core/sized_struct.hpp"
#include "core/validate.hpp"

using namespace dlk::core;

extern "C" {

void dlk_gemm_desc_init_sized(dlk_gemm_desc *desc, size_t struct_size, dlk_dtype a_type,
                              dlk_dtype b_type, dlk_dtype c_type, int64_t m, int64_t n,
                              int64_t k) {
  if (!desc) return;
  dlk_gemm_desc d{};
  d.struct_size = struct_size;
  d.layout = DLK_ROW_MAJOR;
  d.trans_a = d.trans_b = DLK_NO_TRANSPOSE;
  d.m = m, d.n = n, d.k = k;
  d.a_type = a_type, d.b_type = b_type, d.c_type = c_type;
  d.lda = k > 1 ? k : 1;
  d.ldb = n > 1 ? n : 1;
  d.ldc = n > 1 ? n : 1;
  d.batch_count = 1;
  d.alpha = 1.0f;
  d.beta = 0.0f;
  d.scale_mode = DLK_SCALE_NONE;
  write_sized(desc, struct_size, d);
}

dlk_status dlk_gemm(dlk_context_t context, const dlk_gemm_desc *desc, const void *a, const void *b,
                    void *c) {
  return api_guard("dlk_gemm", [&] {
    dlk_context &ctx = checked_context("dlk_gemm", context);
    std::vector<float> multipliers;
    const GemmArgs args = validate_gemm(desc, a, b, c, multipliers);
    require_supported("dlk_gemm", ctx, DLK_OP_GEMM, args.a.dtype, args.b.dtype, args.c_type);
    if (args.m == 0 || args.n == 0 || args.batch == 0) return;
    run_op(ctx, summarize_gemm(args, prints_exec_lines(ctx)),
           [&] { return ctx.backend->gemm(args); });
  });
}

}  // extern "C"
