#include <string>

#include "core/error.hpp"
#include "core/validate.hpp"

namespace dlk::core {
namespace {

void check_types(const char *call, const dlk_conv2d_desc &d, dlk_op op) {
  if (!check::holds_dtype(d.src_type)) throw_invalid(call, "src_type", "is not a dlk_dtype value");
  if (!check::holds_dtype(d.weights_type)) throw_invalid(call, "weights_type", "is not a dlk_dtype value");
  if (!check::holds_dtype(d.dst_type)) throw_invalid(call, "dst_type", "is not a dlk_dtype value");
  const std::string combo = std::string(dlk_dtype_name(d.src_type)) + ":" +
                            dlk_dtype_name(d.weights_type) + ":" + dlk_dtype_name(d.dst_type);
  const char *float_rule = "f32:f32:f32, f16:f16:f16, bf16:bf16:bf16";
  if (check::is_float(d.src_type)) {
    if (d.weights_type != d.src_type)
      throw_invalid(call, "weights_type", "gives " + combo + " (src:weights:dst); valid: " + float_rule);
    if (d.dst_type != d.src_type)
      throw_invalid(call, "dst_type", "gives " + combo + " (src:weights:dst); valid: " + float_rule);
    return;
  }
  if (op != DLK_OP_CONV2D_FORWARD)
    throw_invalid(call, "src_type", std::string("is ") + dlk_dtype_name(d.src_type) +
                                        "; backward passes take f32, f16 or bf16");
  const std::string int_rule =
      std::string(float_rule) + ", and for the forward pass u8|s8:s8:s32|f32|s8|u8";
  if (!check::is_int8(d.src_type))
    throw_invalid(call, "src_type", "gives " + combo + " (src:weights:dst); valid: " + int_rule);
  if (d.weights_type != DLK_DTYPE_S8)
    throw_invalid(call, "weights_type", "gives " + combo + " (src:weights:dst); valid: " + int_rule);
  if (d.dst_type == DLK_DTYPE_F16 || d.dst_type == DLK_DTYPE_BF16)
    throw_invalid(call, "dst_type", "gives " + combo + " (src:weights:dst); valid: " + int_rule);
}

}  // namespace

Conv2dArgs validate_conv2d_desc(const char *call, const dlk_conv2d_desc *desc, dlk_op op) {
  if (!desc) throw_invalid(call, "desc", "must not be NULL");
  check::struct_size(call, "desc", desc, desc->struct_size, sizeof(dlk_conv2d_desc),
                     "dlk_conv2d_desc_init");
  const dlk_conv2d_desc &d = *desc;
  if (!check::holds(d.format, {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC}))
    throw_invalid(call, "format", "must be DLK_FORMAT_NCHW or DLK_FORMAT_NHWC");
  check::at_least(call, "n", d.n, 0);
  check::at_least(call, "c", d.c, 1);
  check::at_least(call, "h", d.h, 1);
  check::at_least(call, "w", d.w, 1);
  check::at_least(call, "k", d.k, 1);
  check::at_least(call, "kh", d.kh, 1);
  check::at_least(call, "kw", d.kw, 1);
  check::at_least(call, "stride_h", d.stride_h, 1);
  check::at_least(call, "stride_w", d.stride_w, 1);
  check::at_least(call, "pad_h", d.pad_h, 0);
  check::at_least(call, "pad_w", d.pad_w, 0);
  check::at_least(call, "dilation_h", d.dilation_h, 1, "1 means a dense kernel");
  check::at_least(call, "dilation_w", d.dilation_w, 1, "1 means a dense kernel");
  check::at_least(call, "groups", d.groups, 1);
  if (d.c % d.groups != 0)
    throw_invalid(call, "groups", "is " + std::to_string(d.groups) + "; must divide c (" +
                                      std::to_string(d.c) + ")");
  if (d.k % d.groups != 0)
    throw_invalid(call, "groups", "is " + std::to_string(d.groups) + "; must divide k (" +
                                      std::to_string(d.k) + ")");
  if (d.relu != 0 && d.relu != 1) throw_invalid(call, "relu", "must be 0 or 1");
  if (d.relu && op != DLK_OP_CONV2D_FORWARD)
    throw_invalid(call, "relu", "must be 0 for a backward pass (apply ReLU's mask to diff_dst first)");

  // Output extent; every product is checked so hostile sizes cannot wrap, and an
  // overflow names the field that caused it.
  const auto out_size = [&](const char *kernel_arg, const char *pad_arg, const char *dilation_arg,
                            int64_t in, int64_t kernel, int64_t pad, int64_t dilation,
                            int64_t stride) {
    const int64_t padded = check::add(call, pad_arg, in, check::mul(call, pad_arg, 2, pad));
    const int64_t span =
        check::add(call, dilation_arg, check::mul(call, dilation_arg, dilation, kernel - 1), 1);
    if (span > padded)
      throw_invalid(call, kernel_arg,
                    "spans " + std::to_string(span) + " with dilation, more than the padded input (" +
                        std::to_string(padded) + ")");
    return (padded - span) / stride + 1;
  };
  Conv2dArgs args;
  args.desc = d;
  args.oh = out_size("kh", "pad_h", "dilation_h", d.h, d.kh, d.pad_h, d.dilation_h, d.stride_h);
  args.ow = out_size("kw", "pad_w", "dilation_w", d.w, d.kw, d.pad_w, d.dilation_w, d.stride_w);
  args.c_per_group = d.c / d.groups;
  args.k_per_group = d.k / d.groups;
  check_types(call, d, op);

  const bool integer = check::is_int8(d.src_type);
  if (integer) {
    check::zero_point_fits(call, "src_zero_point", d.src_zero_point, d.src_type);
  } else if (d.src_zero_point != 0) {
    throw_invalid(call, "src_zero_point", "must be 0 unless src is u8 or s8");
  }
  if (check::is_int8(d.dst_type)) {
    check::zero_point_fits(call, "dst_zero_point", d.dst_zero_point, d.dst_type);
  } else if (d.dst_zero_point != 0) {
    throw_invalid(call, "dst_zero_point", "must be 0 unless dst is u8 or s8");
  }
  if (!check::holds(d.scale_mode, {DLK_SCALE_NONE, DLK_SCALE_PER_TENSOR, DLK_SCALE_PER_CHANNEL}))
    throw_invalid(call, "scale_mode", "must be a dlk_scale_mode value");
  if (d.scale_mode != DLK_SCALE_NONE && (!integer || d.dst_type == DLK_DTYPE_S32))
    throw_invalid(call, "scale_mode",
                  "must be DLK_SCALE_NONE unless an int8 convolution has f32, s8 or u8 dst");

  // Tensor sizes in bytes must fit, whatever pointers come later (oh and ow follow from h and w).
  check::dense_bytes(call, d.src_type, {{"n", d.n}, {"c", d.c}, {"h", d.h}, {"w", d.w}});
  check::dense_bytes(call, d.dst_type, {{"n", d.n}, {"k", d.k}, {"h", args.oh}, {"w", args.ow}});
  check::dense_bytes(call, d.weights_type,
                     {{"k", d.k}, {"c", args.c_per_group}, {"kh", d.kh}, {"kw", d.kw}});

  // The scales are read last: k is known to be a sane size only now.
  if (d.scale_mode == DLK_SCALE_PER_TENSOR) {
    check::scales(call, d.scales, 1);
    args.multiplier = d.scales[0];
  } else if (d.scale_mode == DLK_SCALE_PER_CHANNEL) {
    check::scales(call, d.scales, d.k);
    args.channel_multipliers = d.scales;
  }
  return args;
}

namespace {

struct ConvSpans {
  check::Span src, dst, weights, bias;
};

// Spans of the tensors in their roles; `reads` is false when the batch is empty
// and nothing is read.
ConvSpans conv_spans(const char *call, const Conv2dArgs &a, const char *src_name, const void *src,
                     const char *dst_name, const void *dst, const char *wei_name, const void *wei,
                     const char *bias_name, const void *bias, bool weights_always) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t n = d.n;
  ConvSpans s;
  s.src = check::dense(call, src_name, src, d.src_type, n * d.c * d.h * d.w);
  s.dst = check::dense(call, dst_name, dst, d.dst_type, n * d.k * a.oh * a.ow);
  const int64_t wei_elems = (n > 0 || weights_always) ? d.k * a.c_per_group * d.kh * d.kw : 0;
  s.weights = check::dense(call, wei_name, wei, d.weights_type, wei_elems);
  s.bias = check::dense(call, bias_name, bias, DLK_DTYPE_F32, bias && (n > 0 || weights_always) ? d.k : 0);
  return s;
}

}  // namespace

void validate_conv2d_forward(Conv2dArgs &a, const char *call) {
  if (a.bias && a.desc.dst_type == DLK_DTYPE_S32)
    throw_invalid(call, "bias", "must be NULL for s32 dst (add it after dequantizing)");
  const ConvSpans s = conv_spans(call, a, "src", a.src, "dst", a.dst, "weights", a.weights, "bias",
                                 a.bias, false);
  check::not_null(call, s.src);
  check::not_null(call, s.weights);
  check::not_null(call, s.dst);
  const dlk_conv2d_desc &d = a.desc;
  const int64_t scale_count = d.n == 0                               ? 0
                              : d.scale_mode == DLK_SCALE_PER_TENSOR  ? 1
                              : d.scale_mode == DLK_SCALE_PER_CHANNEL ? d.k
                                                                      : 0;
  const check::Span scales = check::dense(call, "scales", d.scales, DLK_DTYPE_F32, scale_count);
  check::apart(call, {s.dst}, {s.src, s.weights, s.bias, scales});
}

size_t validate_conv2d_weights_create(const Conv2dArgs &a, const char *call) {
  const dlk_conv2d_desc &d = a.desc;
  const check::Span weights =
      check::dense(call, "weights", a.weights, d.weights_type, d.k * a.c_per_group * d.kh * d.kw);
  check::not_null(call, weights);
  return static_cast<size_t>(weights.bytes);
}

void validate_conv2d_packed_desc(const char *call, const dlk_conv2d_desc &f,
                                 const dlk_conv2d_desc &p, bool compare_relu) {
  // Every field but struct_size, n and scales (and relu, where asked) is
  // compared below: a field added to the desc changes its size and is to be
  // added there.
  static_assert(sizeof(dlk_conv2d_desc) == 168, "dlk_conv2d_desc changed: compare its new field");
  const auto same = [&](const char *field, int64_t forward, int64_t packed) {
    if (forward != packed)
      throw_invalid(call, field,
                    "is " + std::to_string(forward) + " but the packed weights' desc has " +
                        std::to_string(packed) + " (only n and scales may differ" +
                        (compare_relu ? ")" : ", and relu for backward data)"));
  };
  same("format", f.format, p.format);
  same("c", f.c, p.c);
  same("h", f.h, p.h);
  same("w", f.w, p.w);
  same("k", f.k, p.k);
  same("kh", f.kh, p.kh);
  same("kw", f.kw, p.kw);
  same("stride_h", f.stride_h, p.stride_h);
  same("stride_w", f.stride_w, p.stride_w);
  same("pad_h", f.pad_h, p.pad_h);
  same("pad_w", f.pad_w, p.pad_w);
  same("dilation_h", f.dilation_h, p.dilation_h);
  same("dilation_w", f.dilation_w, p.dilation_w);
  same("groups", f.groups, p.groups);
  same("src_type", f.src_type, p.src_type);
  same("weights_type", f.weights_type, p.weights_type);
  same("dst_type", f.dst_type, p.dst_type);
  if (compare_relu) same("relu", f.relu, p.relu);
  same("src_zero_point", f.src_zero_point, p.src_zero_point);
  same("dst_zero_point", f.dst_zero_point, p.dst_zero_point);
  same("scale_mode", f.scale_mode, p.scale_mode);
}

void validate_conv2d_backward_data(Conv2dArgs &a, const char *call) {
  const ConvSpans s = conv_spans(call, a, "diff_src", a.diff_src, "diff_dst", a.diff_dst, "weights",
                                 a.weights, "bias", nullptr, false);
  check::not_null(call, s.dst);
  check::not_null(call, s.weights);
  check::not_null(call, s.src);
  check::apart(call, {s.src}, {s.dst, s.weights});
}

void validate_conv2d_backward_weights(Conv2dArgs &a) {
  constexpr const char *call = "dlk_conv2d_backward_weights";
  // diff_weights is written even for an empty batch (it becomes zero).
  const ConvSpans s = conv_spans(call, a, "src", a.src, "diff_dst", a.diff_dst, "diff_weights",
                                 a.diff_weights, "diff_bias", a.diff_bias, true);
  check::not_null(call, s.src);
  check::not_null(call, s.dst);
  check::not_null(call, s.weights);
  check::apart(call, {s.weights, s.bias}, {s.src, s.dst});
}

}  // namespace dlk::core
