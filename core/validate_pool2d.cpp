#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/validate.hpp"

namespace dlk::core {

Pool2dArgs validate_pool2d_desc(const char *call, const dlk_pool2d_desc *desc, dlk_op op) {
  if (!desc) throw_invalid(call, "desc", "must not be NULL");
  check::struct_size(call, "desc", desc, desc->struct_size, sizeof(dlk_pool2d_desc),
                     "dlk_pool2d_desc_init");
  const dlk_pool2d_desc &d = *desc;
  if (!check::holds(d.format, {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC}))
    throw_invalid(call, "format", "must be DLK_FORMAT_NCHW or DLK_FORMAT_NHWC");
  if (!check::holds(d.kind, {DLK_POOL_MAX, DLK_POOL_AVG_INCLUDE_PADDING, DLK_POOL_AVG_EXCLUDE_PADDING}))
    throw_invalid(call, "kind", "must be a dlk_pool_kind value");
  check::at_least(call, "n", d.n, 0);
  check::at_least(call, "c", d.c, 1);
  check::at_least(call, "h", d.h, 1);
  check::at_least(call, "w", d.w, 1);
  check::at_least(call, "kh", d.kh, 1);
  check::at_least(call, "kw", d.kw, 1);
  check::at_least(call, "stride_h", d.stride_h, 1);
  check::at_least(call, "stride_w", d.stride_w, 1);
  check::at_least(call, "pad_h", d.pad_h, 0);
  check::at_least(call, "pad_w", d.pad_w, 0);
  if (d.pad_h > d.kh / 2)
    throw_invalid(call, "pad_h", "is " + std::to_string(d.pad_h) + "; must be <= kh / 2 (" +
                                     std::to_string(d.kh / 2) + ") so every window holds an image element");
  if (d.pad_w > d.kw / 2)
    throw_invalid(call, "pad_w", "is " + std::to_string(d.pad_w) + "; must be <= kw / 2 (" +
                                     std::to_string(d.kw / 2) + ") so every window holds an image element");
  const int64_t padded_h = check::add(call, "pad_h", d.h, check::mul(call, "pad_h", 2, d.pad_h));
  const int64_t padded_w = check::add(call, "pad_w", d.w, check::mul(call, "pad_w", 2, d.pad_w));
  if (d.kh > padded_h)
    throw_invalid(call, "kh", "is larger than the padded input height (" + std::to_string(padded_h) + ")");
  if (d.kw > padded_w)
    throw_invalid(call, "kw", "is larger than the padded input width (" + std::to_string(padded_w) + ")");

  if (!check::holds(d.dtype, {DLK_DTYPE_F32, DLK_DTYPE_F16, DLK_DTYPE_BF16, DLK_DTYPE_S8, DLK_DTYPE_U8}))
    throw_invalid(call, "dtype", "must be f32, f16, bf16, s8 or u8");
  const bool float_type = check::is_float(d.dtype);
  if (!float_type && op == DLK_OP_POOL2D_BACKWARD)
    throw_invalid(call, "dtype", std::string("is ") + dlk_dtype_name(d.dtype) +
                                     "; the backward pass takes f32, f16 or bf16");
  if (check::mul(call, "h", d.h, d.w) > INT32_MAX)
    throw_invalid(call, "h", "times w must fit the int32 argmax index");
  // The window's size is average pooling's divisor (include padding).
  check::mul(call, "kw", d.kh, d.kw);

  Pool2dArgs args;
  args.desc = d;
  args.oh = (padded_h - d.kh) / d.stride_h + 1;
  args.ow = (padded_w - d.kw) / d.stride_w + 1;
  // Tensor sizes in bytes must fit (oh and ow follow from h and w).
  check::dense_bytes(call, d.dtype, {{"n", d.n}, {"c", d.c}, {"h", d.h}, {"w", d.w}});
  check::dense_bytes(call, d.dtype, {{"n", d.n}, {"c", d.c}, {"h", args.oh}, {"w", args.ow}});
  return args;
}

namespace {

struct PoolSpans {
  check::Span src, dst, argmax;
};

PoolSpans pool_spans(const char *call, const Pool2dArgs &a, const char *src_name, const void *src,
                     const char *dst_name, const void *dst, const void *argmax) {
  const dlk_pool2d_desc &d = a.desc;
  PoolSpans s;
  s.src = check::dense(call, src_name, src, d.dtype, d.n * d.c * d.h * d.w);
  s.dst = check::dense(call, dst_name, dst, d.dtype, d.n * d.c * a.oh * a.ow);
  s.argmax = check::dense(call, "argmax", argmax, DLK_DTYPE_S32, argmax ? d.n * d.c * a.oh * a.ow : 0);
  return s;
}

}  // namespace

void validate_pool2d_forward(Pool2dArgs &a) {
  constexpr const char *call = "dlk_pool2d_forward";
  if (a.argmax && a.desc.kind != DLK_POOL_MAX)
    throw_invalid(call, "argmax", "must be NULL for average pooling");
  const PoolSpans s = pool_spans(call, a, "src", a.src, "dst", a.dst, a.argmax);
  check::not_null(call, s.src);
  check::not_null(call, s.dst);
  check::apart(call, {s.dst, s.argmax}, {s.src});
}

void validate_pool2d_backward(Pool2dArgs &a) {
  constexpr const char *call = "dlk_pool2d_backward";
  if (a.desc.kind == DLK_POOL_MAX && !a.argmax_in && a.desc.n > 0)
    throw_invalid(call, "argmax", "must not be NULL for max pooling (pass the forward pass's argmax)");
  if (a.argmax_in && a.desc.kind != DLK_POOL_MAX)
    throw_invalid(call, "argmax", "must be NULL for average pooling");
  const PoolSpans s = pool_spans(call, a, "diff_src", a.diff_src, "diff_dst", a.diff_dst, a.argmax_in);
  check::not_null(call, s.src);
  check::not_null(call, s.dst);
  check::apart(call, {s.src}, {s.dst, s.argmax});
}

}  // namespace dlk::core
