// C ABI: 2-D convolution, forward and backward.
#include <memory>
#include <mutex>
#include <string>

#include "core/api_guard.hpp"
#include "core/context.hpp"
#include "core/sized_struct.hpp"
#include "core/validate.hpp"

using namespace dlk::core;

namespace {

constexpr unsigned kConv2dPasses = DLK_CONV2D_PASS_FORWARD | DLK_CONV2D_PASS_BACKWARD_DATA;

// dlk_conv2d_weights_create(_for): the desc validated for each pass (backward
// data's without the forward's relu), the weights copied and packed per pass.
void create_conv2d_weights(const char *call, dlk_context_t context, const dlk_conv2d_desc *desc,
                           const void *weights, unsigned passes, dlk_conv2d_weights_t *packed) {
  dlk_context &ctx = checked_context(call, context);
  if (!packed) throw_invalid(call, "packed", "must not be NULL");
  *packed = nullptr;
  if (passes == 0 || (passes & ~kConv2dPasses) != 0)
    throw_invalid(call, "passes",
                  "is " + std::to_string(passes) +
                      "; must be DLK_CONV2D_PASS_FORWARD, DLK_CONV2D_PASS_BACKWARD_DATA or both");
  Conv2dArgs args = validate_conv2d_desc(call, desc, DLK_OP_CONV2D_FORWARD);
  args.weights = weights;
  const size_t bytes = validate_conv2d_weights_create(args, call);
  Conv2dArgs backward = args;
  if (passes & DLK_CONV2D_PASS_BACKWARD_DATA) {
    dlk_conv2d_desc unfused = *desc;
    unfused.relu = 0;
    backward = validate_conv2d_desc(call, &unfused, DLK_OP_CONV2D_BACKWARD_DATA);
    backward.weights = weights;
  }
  if (passes & DLK_CONV2D_PASS_FORWARD)
    require_supported(call, ctx, DLK_OP_CONV2D_FORWARD, desc->src_type, desc->weights_type,
                      desc->dst_type);
  if (passes & DLK_CONV2D_PASS_BACKWARD_DATA)
    require_supported(call, ctx, DLK_OP_CONV2D_BACKWARD_DATA, desc->src_type,
                      desc->weights_type, desc->dst_type);
  // The backend packs on the context's threads: one call at a time, as an op.
  const ExclusiveUse claim(ctx, call);
  auto made = std::make_unique<dlk_conv2d_weights>(*ctx.backend, args, bytes);
  made->passes = passes;
  if (passes & DLK_CONV2D_PASS_FORWARD) made->packed = ctx.backend->conv2d_pack_weights(args);
  if (passes & DLK_CONV2D_PASS_BACKWARD_DATA)
    made->packed_backward_data = ctx.backend->conv2d_pack_backward_data_weights(backward);
  const std::lock_guard<std::mutex> lock(ctx.conv2d_weights_mutex);
  *packed = made.get();
  ctx.conv2d_weights.emplace(made.get(), std::move(made));
}

// packed is a handle of this context packed for `pass`.
void check_packed_weights(const char *call, dlk_context &ctx, dlk_conv2d_weights_t packed,
                          dlk_conv2d_pass pass) {
  const std::lock_guard<std::mutex> lock(ctx.conv2d_weights_mutex);
  if (!packed || ctx.conv2d_weights.count(packed) == 0)
    throw_invalid(call, "packed", "is not packed weights of this context "
                                  "(dlk_conv2d_weights_create makes them)");
  if ((packed->passes & pass) == 0)
    throw_invalid(call, "packed",
                  pass == DLK_CONV2D_PASS_FORWARD
                      ? "was not packed for the forward (DLK_CONV2D_PASS_FORWARD)"
                      : "was not packed for backward data (dlk_conv2d_weights_create_for with "
                        "DLK_CONV2D_PASS_BACKWARD_DATA)");
}

}  // namespace

extern "C" {

void dlk_conv2d_desc_init_sized(dlk_conv2d_desc *desc, size_t struct_size, dlk_dtype dtype,
                                int64_t n, int64_t c, int64_t h, int64_t w, int64_t k,
                                int64_t kh, int64_t kw) {
  if (!desc) return;
  dlk_conv2d_desc d{};
  d.struct_size = struct_size;
  d.format = DLK_FORMAT_NCHW;
  d.n = n, d.c = c, d.h = h, d.w = w, d.k = k, d.kh = kh, d.kw = kw;
  d.stride_h = d.stride_w = 1;
  d.dilation_h = d.dilation_w = 1;
  d.groups = 1;
  // One assignment each: a chain would read an enum field back, which is undefined
  // when a C caller passed a value outside dlk_dtype (validation reports it later).
  d.src_type = dtype;
  d.weights_type = dtype;
  d.dst_type = dtype;
  d.scale_mode = DLK_SCALE_NONE;
  write_sized(desc, struct_size, d);
}

dlk_status dlk_conv2d_output_shape(const dlk_conv2d_desc *desc, int64_t *oh, int64_t *ow) {
  return api_guard("dlk_conv2d_output_shape", [&] {
    constexpr const char *call = "dlk_conv2d_output_shape";
    const Conv2dArgs args = validate_conv2d_desc(call, desc, DLK_OP_CONV2D_FORWARD);
    if (!oh) throw_invalid(call, "oh", "must not be NULL");
    if (!ow) throw_invalid(call, "ow", "must not be NULL");
    *oh = args.oh;
    *ow = args.ow;
  });
}

dlk_status dlk_conv2d_forward(dlk_context_t context, const dlk_conv2d_desc *desc, const void *src,
                              const void *weights, const float *bias, void *dst) {
  return api_guard("dlk_conv2d_forward", [&] {
    constexpr const char *call = "dlk_conv2d_forward";
    constexpr dlk_op op = DLK_OP_CONV2D_FORWARD;
    dlk_context &ctx = checked_context(call, context);
    Conv2dArgs args = validate_conv2d_desc(call, desc, op);
    args.src = src, args.weights = weights, args.bias = bias, args.dst = dst;
    validate_conv2d_forward(args);
    require_supported(call, ctx, op, desc->src_type, desc->weights_type, desc->dst_type);
    if (desc->n == 0) return;
    run_op(ctx, summarize_conv2d(op, args, prints_exec_lines(ctx)),
           [&] { return ctx.backend->conv2d_forward(args); });
  });
}

dlk_status dlk_conv2d_weights_create(dlk_context_t context, const dlk_conv2d_desc *desc,
                                     const void *weights, dlk_conv2d_weights_t *packed) {
  return api_guard("dlk_conv2d_weights_create", [&] {
    create_conv2d_weights("dlk_conv2d_weights_create", context, desc, weights,
                          DLK_CONV2D_PASS_FORWARD, packed);
  });
}

dlk_status dlk_conv2d_weights_create_for(dlk_context_t context, const dlk_conv2d_desc *desc,
                                         const void *weights, unsigned passes,
                                         dlk_conv2d_weights_t *packed) {
  return api_guard("dlk_conv2d_weights_create_for", [&] {
    create_conv2d_weights("dlk_conv2d_weights_create_for", context, desc, weights, passes,
                          packed);
  });
}

dlk_status dlk_conv2d_weights_destroy(dlk_context_t context, dlk_conv2d_weights_t packed) {
  return api_guard("dlk_conv2d_weights_destroy", [&] {
    constexpr const char *call = "dlk_conv2d_weights_destroy";
    dlk_context &ctx = checked_context(call, context);
    if (!packed) return;
    const ExclusiveUse claim(ctx, call);
    const std::lock_guard<std::mutex> lock(ctx.conv2d_weights_mutex);
    if (ctx.conv2d_weights.erase(packed) == 0)
      throw_invalid(call, "packed", "is not packed weights of this context");
  });
}

dlk_status dlk_conv2d_forward_packed(dlk_context_t context, const dlk_conv2d_desc *desc,
                                     const void *src, dlk_conv2d_weights_t packed,
                                     const float *bias, void *dst) {
  return api_guard("dlk_conv2d_forward_packed", [&] {
    constexpr const char *call = "dlk_conv2d_forward_packed";
    constexpr dlk_op op = DLK_OP_CONV2D_FORWARD;
    dlk_context &ctx = checked_context(call, context);
    check_packed_weights(call, ctx, packed, DLK_CONV2D_PASS_FORWARD);
    Conv2dArgs args = validate_conv2d_desc(call, desc, op);
    validate_conv2d_packed_desc(call, args.desc, packed->desc, true);
    args.src = src, args.weights = packed->plain, args.bias = bias, args.dst = dst;
    validate_conv2d_forward(args, call);
    require_supported(call, ctx, op, desc->src_type, desc->weights_type, desc->dst_type);
    if (desc->n == 0) return;
    run_op(ctx, summarize_conv2d(op, args, prints_exec_lines(ctx)),
           [&] { return ctx.backend->conv2d_forward_packed(args, packed->packed.get()); });
  });
}

dlk_status dlk_conv2d_backward_data(dlk_context_t context, const dlk_conv2d_desc *desc,
                                    const void *diff_dst, const void *weights, void *diff_src) {
  return api_guard("dlk_conv2d_backward_data", [&] {
    constexpr const char *call = "dlk_conv2d_backward_data";
    constexpr dlk_op op = DLK_OP_CONV2D_BACKWARD_DATA;
    dlk_context &ctx = checked_context(call, context);
    Conv2dArgs args = validate_conv2d_desc(call, desc, op);
    args.diff_dst = diff_dst, args.weights = weights, args.diff_src = diff_src;
    validate_conv2d_backward_data(args);
    require_supported(call, ctx, op, desc->src_type, desc->weights_type, desc->dst_type);
    if (desc->n == 0) return;
    run_op(ctx, summarize_conv2d(op, args, prints_exec_lines(ctx)),
           [&] { return ctx.backend->conv2d_backward_data(args); });
  });
}

dlk_status dlk_conv2d_backward_data_packed(dlk_context_t context, const dlk_conv2d_desc *desc,
                                           const void *diff_dst, dlk_conv2d_weights_t packed,
                                           void *diff_src) {
  return api_guard("dlk_conv2d_backward_data_packed", [&] {
    constexpr const char *call = "dlk_conv2d_backward_data_packed";
    constexpr dlk_op op = DLK_OP_CONV2D_BACKWARD_DATA;
    dlk_context &ctx = checked_context(call, context);
    check_packed_weights(call, ctx, packed, DLK_CONV2D_PASS_BACKWARD_DATA);
    Conv2dArgs args = validate_conv2d_desc(call, desc, op);
    validate_conv2d_packed_desc(call, args.desc, packed->desc, false);
    args.diff_dst = diff_dst, args.weights = packed->plain, args.diff_src = diff_src;
    validate_conv2d_backward_data(args, call);
    require_supported(call, ctx, op, desc->src_type, desc->weights_type, desc->dst_type);
    if (desc->n == 0) return;
    run_op(ctx, summarize_conv2d(op, args, prints_exec_lines(ctx)), [&] {
      return ctx.backend->conv2d_backward_data_packed(args, packed->packed_backward_data.get());
    });
  });
}

dlk_status dlk_conv2d_backward_weights(dlk_context_t context, const dlk_conv2d_desc *desc,
                                       const void *src, const void *diff_dst, void *diff_weights,
                                       float *diff_bias) {
  return api_guard("dlk_conv2d_backward_weights", [&] {
    constexpr const char *call = "dlk_conv2d_backward_weights";
    constexpr dlk_op op = DLK_OP_CONV2D_BACKWARD_WEIGHTS;
    dlk_context &ctx = checked_context(call, context);
    Conv2dArgs args = validate_conv2d_desc(call, desc, op);
    args.src = src, args.diff_dst = diff_dst, args.diff_weights = diff_weights,
    args.diff_bias = diff_bias;
    validate_conv2d_backward_weights(args);
    require_supported(call, ctx, op, desc->src_type, desc->weights_type, desc->dst_type);
    // An empty batch still writes: the gradients of nothing are zero.
    run_op(ctx, summarize_conv2d(op, args, prints_exec_lines(ctx)),
           [&] { return ctx.backend->conv2d_backward_weights(args); });
  });
}

}  // extern "C"
