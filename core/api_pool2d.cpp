// C ABI: 2-D pooling, forward and backward.
#include "core/api_guard.hpp"
#include "core/context.hpp"
#include "core/sized_struct.hpp"
#include "core/validate.hpp"

using namespace dlk::core;

extern "C" {

void dlk_pool2d_desc_init_sized(dlk_pool2d_desc *desc, size_t struct_size, dlk_pool_kind kind,
                                dlk_dtype dtype, int64_t n, int64_t c, int64_t h, int64_t w,
                                int64_t kh, int64_t kw) {
  if (!desc) return;
  dlk_pool2d_desc d{};
  d.struct_size = struct_size;
  d.format = DLK_FORMAT_NCHW;
  d.kind = kind;
  d.n = n, d.c = c, d.h = h, d.w = w, d.kh = kh, d.kw = kw;
  d.stride_h = kh, d.stride_w = kw;
  d.dtype = dtype;
  write_sized(desc, struct_size, d);
}

dlk_status dlk_pool2d_output_shape(const dlk_pool2d_desc *desc, int64_t *oh, int64_t *ow) {
  return api_guard("dlk_pool2d_output_shape", [&] {
    constexpr const char *call = "dlk_pool2d_output_shape";
    const Pool2dArgs args = validate_pool2d_desc(call, desc, DLK_OP_POOL2D_FORWARD);
    if (!oh) throw_invalid(call, "oh", "must not be NULL");
    if (!ow) throw_invalid(call, "ow", "must not be NULL");
    *oh = args.oh;
    *ow = args.ow;
  });
}

dlk_status dlk_pool2d_forward(dlk_context_t context, const dlk_pool2d_desc *desc, const void *src,
                              void *dst, int32_t *argmax) {
  return api_guard("dlk_pool2d_forward", [&] {
    constexpr const char *call = "dlk_pool2d_forward";
    constexpr dlk_op op = DLK_OP_POOL2D_FORWARD;
    dlk_context &ctx = checked_context(call, context);
    Pool2dArgs args = validate_pool2d_desc(call, desc, op);
    args.src = src, args.dst = dst, args.argmax = argmax;
    validate_pool2d_forward(args);
    require_supported(call, ctx, op, desc->dtype, desc->dtype, desc->dtype);
    if (desc->n == 0) return;
    run_op(ctx, summarize_pool2d(op, args, prints_exec_lines(ctx)),
           [&] { return ctx.backend->pool2d_forward(args); });
  });
}

dlk_status dlk_pool2d_backward(dlk_context_t context, const dlk_pool2d_desc *desc,
                               const void *diff_dst, const int32_t *argmax, void *diff_src) {
  return api_guard("dlk_pool2d_backward", [&] {
    constexpr const char *call = "dlk_pool2d_backward";
    constexpr dlk_op op = DLK_OP_POOL2D_BACKWARD;
    dlk_context &ctx = checked_context(call, context);
    Pool2dArgs args = validate_pool2d_desc(call, desc, op);
    args.diff_dst = diff_dst, args.argmax_in = argmax, args.diff_src = diff_src;
    validate_pool2d_backward(args);
    require_supported(call, ctx, op, desc->dtype, desc->dtype, desc->dtype);
    if (desc->n == 0) return;
    run_op(ctx, summarize_pool2d(op, args, prints_exec_lines(ctx)),
           [&] { return ctx.backend->pool2d_backward(args); });
  });
}

}  // extern "C"
