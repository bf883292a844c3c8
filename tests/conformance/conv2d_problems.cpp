#include "tests/conformance/conv2d_problems.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "tests/conformance/int8_parameters.hpp"
#include "tests/conformance/reference_conv2d.hpp"

namespace dlk::conformance {

namespace {

struct Geometry {
  int64_t n, c, h, w, k, kh, kw, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups;
};

// 1x1; primes; strides 2 and past the kernel (pixels no output reads); dilation;
// depthwise (with a channel multiplier); groups; kernels as large as the image;
// padding wider than the kernel reaches (outputs of bias alone); an empty batch.
constexpr Geometry kGeometries[] = {
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1},   {2, 3, 7, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {1, 4, 9, 9, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1},   {1, 3, 13, 10, 2, 5, 3, 1, 2, 2, 1, 2, 1, 1},
    {2, 6, 8, 8, 6, 3, 3, 1, 1, 1, 1, 1, 1, 6},   {1, 4, 7, 5, 8, 3, 3, 2, 1, 1, 1, 1, 1, 4},
    {1, 6, 5, 6, 9, 2, 2, 1, 1, 0, 0, 1, 1, 3},   {3, 5, 5, 4, 7, 5, 4, 1, 1, 0, 0, 1, 1, 1},
    {0, 3, 6, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1},   {1, 17, 6, 6, 19, 1, 1, 2, 2, 0, 0, 1, 1, 1},
    {1, 19, 12, 12, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1}, {1, 2, 4, 5, 3, 1, 1, 1, 1, 1, 2, 1, 1, 1},
    {2, 3, 5, 5, 4, 3, 3, 2, 1, 3, 2, 2, 3, 1},   {1, 3, 11, 11, 2, 2, 2, 3, 3, 0, 0, 1, 1, 1},
    // At least 32 output channels per group (backward data's pixel-major
    // column matrix), rows of more than 32 pixels, more than 128 taps (col2im's
    // blocks), strides 1 to 3, dilation, padding past the kernel's reach;
    // channels in several chunks of 32 (backward data splits them), and in
    // several long chunks at 128 output pixels (kMaxPixelsForLongChunks; groups
    // keep it off the direct kernels).
    {1, 5, 4, 70, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1}, {1, 16, 5, 75, 40, 3, 5, 2, 2, 2, 3, 1, 1, 1},
    {2, 6, 7, 40, 36, 3, 3, 3, 3, 1, 1, 2, 2, 1}, {1, 8, 5, 34, 64, 3, 3, 1, 2, 1, 1, 1, 1, 2},
    {1, 4, 3, 36, 32, 2, 2, 1, 1, 3, 3, 1, 1, 1}, {1, 70, 4, 34, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {1, 200, 8, 16, 80, 3, 3, 1, 1, 1, 1, 1, 1, 2},
};

// Depthwise rows and channel counts past the direct kernel's vector blocks
// (64 outputs on AVX-512): stride 1, 2 and 3, dilation, padding on both sides,
// channel multipliers 1 and 2.
constexpr Geometry kWideDepthwiseGeometries[] = {
    {1, 3, 5, 150, 3, 3, 3, 1, 1, 1, 1, 1, 1, 3},
    {1, 70, 9, 140, 70, 5, 5, 2, 2, 2, 2, 1, 1, 70},
    {2, 5, 12, 200, 5, 3, 3, 1, 3, 2, 3, 2, 2, 5},
    {1, 66, 5, 70, 132, 3, 3, 1, 1, 1, 1, 1, 1, 66},
};

// More taps than a k block of the CPU GEMM (512), im2col and 1x1, with bias and
// ReLU: the fused epilogue must wait for the last block.
constexpr Geometry kDeepGeometries[] = {
    {1, 60, 6, 5, 18, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {2, 520, 3, 3, 17, 1, 1, 1, 1, 0, 0, 1, 1, 1},
};

// 1x1 without padding, which the backward passes run straight on the GEMM
// (NCHW backward data from 512 output pixels, the next two, or over 1024
// channels a group, the last two, whose weights' rows 4 KiB apart keep the
// GEMM's column-major C): stride 1 and (ResNet-50's projections) 2 and 2:3
// with dilation (no effect on a 1x1 kernel), groups, several images, channels
// past a panel of 32.
constexpr Geometry kPointwiseGeometries[] = {
    {3, 12, 7, 9, 40, 1, 1, 1, 1, 0, 0, 1, 1, 2},  {2, 33, 9, 11, 20, 1, 1, 2, 3, 0, 0, 2, 1, 1},
    {2, 24, 10, 7, 36, 1, 1, 2, 2, 0, 0, 1, 1, 3}, {1, 70, 6, 6, 96, 1, 1, 1, 1, 0, 0, 1, 1, 1},
    {2, 10, 24, 25, 12, 1, 1, 1, 1, 0, 0, 1, 1, 2}, {1, 7, 47, 50, 9, 1, 1, 2, 2, 0, 0, 1, 1, 1},
    {1, 1024, 5, 7, 64, 1, 1, 1, 1, 0, 0, 1, 1, 1},
    {2, 2048, 14, 10, 128, 1, 1, 2, 2, 0, 0, 1, 1, 2},
};

// The edges of a blocked kernel (issue 26): channels one below and one above a
// block of 16 and of 32 (15, 17, 31, 33) as inputs and as outputs, rows one
// above a register tile (15, 17, 29, 33 pixels: tiles of 14, 16, 28 and 32),
// 3x3 and 1x1 at stride 1 and 2, padding wider than the kernel (taps that read
// only padding), groups of 15 and 17 channels, depthwise with multipliers 1
// and 2. Small images: the double-precision reference runs each on every tier.
constexpr Geometry kBlockEdgeGeometries[] = {
    {1, 15, 5, 17, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1},  {2, 17, 4, 15, 15, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {1, 31, 4, 29, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1},  {1, 33, 5, 33, 31, 3, 3, 2, 2, 1, 1, 1, 1, 1},
    {2, 33, 3, 15, 17, 1, 1, 1, 1, 0, 0, 1, 1, 1},  {1, 17, 6, 29, 33, 1, 1, 2, 2, 0, 0, 1, 1, 1},
    {1, 15, 5, 17, 16, 3, 3, 1, 1, 4, 4, 1, 1, 1},  {1, 17, 4, 15, 31, 1, 1, 2, 2, 2, 2, 1, 1, 1},
    {1, 34, 4, 17, 66, 3, 3, 1, 1, 1, 1, 1, 1, 2},  {1, 60, 3, 15, 60, 3, 3, 2, 2, 1, 1, 1, 1, 4},
    {1, 33, 5, 17, 33, 3, 3, 1, 1, 1, 1, 1, 1, 33}, {1, 17, 7, 33, 34, 3, 3, 2, 2, 1, 1, 1, 1, 17},
    {1, 15, 6, 29, 15, 5, 5, 1, 1, 3, 3, 1, 1, 15},
};

ConvProblem make(dlk_op op, const ConvTypes &t, dlk_format format, const Geometry &g) {
  ConvProblem p;
  p.op = op;
  dlk_conv2d_desc &d = p.desc;
  dlk_conv2d_desc_init(&d, t.src, g.n, g.c, g.h, g.w, g.k, g.kh, g.kw);
  d.format = format;
  d.n = g.n, d.c = g.c, d.h = g.h, d.w = g.w, d.k = g.k, d.kh = g.kh, d.kw = g.kw;
  d.stride_h = g.stride_h, d.stride_w = g.stride_w;
  d.pad_h = g.pad_h, d.pad_w = g.pad_w;
  d.dilation_h = g.dilation_h, d.dilation_w = g.dilation_w;
  d.groups = g.groups;
  d.src_type = t.src;
  d.weights_type = is_int8_type(t.src) ? DLK_DTYPE_S8 : t.src;
  d.dst_type = t.dst;
  d.scale_mode = DLK_SCALE_NONE;
  return p;
}

// Bias, ReLU, zero points and scales as the op and types allow them.
void set_epilogue(ConvProblem &p, Rng &rng, bool bias, bool relu) {
  dlk_conv2d_desc &d = p.desc;
  p.bias = bias && !(p.op == DLK_OP_CONV2D_FORWARD && d.dst_type == DLK_DTYPE_S32) &&
           p.op != DLK_OP_CONV2D_BACKWARD_DATA;
  d.relu = relu && p.op == DLK_OP_CONV2D_FORWARD;
  if (!is_int8_type(d.src_type)) return;
  d.src_zero_point = random_zero_point(rng, d.src_type);
  if (d.dst_type == DLK_DTYPE_S32) return;
  if (is_int8_type(d.dst_type)) d.dst_zero_point = random_zero_point(rng, d.dst_type);
  // Without scales the raw sums saturate s8/u8: mostly give them scales.
  d.scale_mode = rng.chance(0.2) ? DLK_SCALE_NONE : rng.chance(0.5) ? DLK_SCALE_PER_TENSOR : DLK_SCALE_PER_CHANNEL;
  if (d.scale_mode == DLK_SCALE_NONE) return;
  p.scales.resize(d.scale_mode == DLK_SCALE_PER_TENSOR ? 1 : static_cast<size_t>(d.k));
  for (float &s : p.scales) s = random_multiplier(rng, d.c / d.groups * d.kh * d.kw, p.fill);
}

// A kernel that fits the padded image: shrink dilation, then the kernel.
void fit_kernel(int64_t in, int64_t pad, int64_t &kernel, int64_t &dilation) {
  while (dilation * (kernel - 1) + 1 > in + 2 * pad) {
    if (dilation > 1)
      --dilation;
    else
      --kernel;
  }
}

ConvProblem random_problem(dlk_op op, const ConvTypes &t, Rng &rng) {
  Geometry g{};
  g.n = rng.chance(0.03) ? 0 : rng.uniform(1, 3);
  const double kind = rng.unit();
  const int64_t c_per_group = rng.uniform(1, 6), k_per_group = rng.uniform(1, 6);
  if (kind < 0.6) {
    g.groups = 1, g.c = rng.uniform(1, 12), g.k = rng.uniform(1, 12);
  } else if (kind < 0.8) {
    g.groups = rng.uniform(2, 3), g.c = g.groups * c_per_group, g.k = g.groups * k_per_group;
  } else {  // depthwise, with a channel multiplier of 1 or 2
    g.c = g.groups = rng.uniform(1, 12), g.k = g.c * rng.uniform(1, 2);
  }
  g.h = rng.uniform(1, 16), g.w = rng.uniform(1, 16);
  g.kh = rng.uniform(1, 5), g.kw = rng.uniform(1, 5);
  g.stride_h = rng.uniform(1, 3), g.stride_w = rng.uniform(1, 3);
  g.dilation_h = rng.chance(0.7) ? 1 : rng.uniform(2, 3);
  g.dilation_w = rng.chance(0.7) ? 1 : rng.uniform(2, 3);
  g.pad_h = rng.chance(0.5) ? 0 : rng.uniform(0, g.kh);
  g.pad_w = rng.chance(0.5) ? 0 : rng.uniform(0, g.kw);
  fit_kernel(g.h, g.pad_h, g.kh, g.dilation_h);
  fit_kernel(g.w, g.pad_w, g.kw, g.dilation_w);
  ConvProblem p = make(op, t, rng.chance(0.5) ? DLK_FORMAT_NCHW : DLK_FORMAT_NHWC, g);
  p.fill = rng.chance(0.85) ? Fill::uniform : rng.pick({Fill::few_values, Fill::negative});
  set_epilogue(p, rng, rng.chance(0.5), rng.chance(0.5));
  return p;
}

}  // namespace

std::string ConvProblem::describe() const {
  const dlk_conv2d_desc &d = desc;
  std::ostringstream s;
  s << std::setprecision(9);  // alpha, beta and scales exactly as floats
  s << dlk_op_name(op) << " " << dlk_dtype_name(d.src_type) << ":" << dlk_dtype_name(d.weights_type)
    << ":" << dlk_dtype_name(d.dst_type) << " " << (d.format == DLK_FORMAT_NCHW ? "nchw" : "nhwc")
    << " n=" << d.n << " c=" << d.c << " h=" << d.h << " w=" << d.w << " k=" << d.k
    << " kh=" << d.kh << " kw=" << d.kw << " stride=" << d.stride_h << ":" << d.stride_w
    << " pad=" << d.pad_h << ":" << d.pad_w << " dilation=" << d.dilation_h << ":" << d.dilation_w
    << " groups=" << d.groups;
  if (bias) s << (op == DLK_OP_CONV2D_FORWARD ? " bias" : " diff_bias");
  if (d.relu) s << " relu";
  if (is_int8_type(d.src_type)) {
    s << " src_zp=" << d.src_zero_point << " dst_zp=" << d.dst_zero_point << " scales="
      << (d.scale_mode == DLK_SCALE_NONE ? "none" : d.scale_mode == DLK_SCALE_PER_TENSOR ? "tensor" : "channel");
    if (!scales.empty()) s << "(" << scales[0] << (scales.size() > 1 ? ",..." : "") << ")";
  }
  s << " fill=" << fill_name(fill);
  return s.str();
}

std::vector<ConvProblem> conv2d_problems(dlk_op op, const std::vector<ConvTypes> &types, Rng &rng,
                                         int random_count) {
  std::vector<ConvProblem> list;
  int i = 0;
  for (const ConvTypes &t : types)
    for (dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC})
      for (const Geometry &g : kGeometries) {
        ConvProblem p = make(op, t, format, g);
        if (i % 5 == 4) p.fill = Fill::few_values;
        set_epilogue(p, rng, i % 2 == 1, i % 4 >= 2);
        list.push_back(p);
        ++i;
      }
  // ReLU on all of these; bias on NCHW only for the depthwise ones, so that
  // ReLU alone is seen too.
  const auto add_all = [&](const auto &geometries, bool nhwc_bias) {
    for (const ConvTypes &t : types)
      for (dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC})
        for (const Geometry &g : geometries) {
          ConvProblem p = make(op, t, format, g);
          set_epilogue(p, rng, format == DLK_FORMAT_NCHW || nhwc_bias, true);
          list.push_back(p);
        }
  };
  add_all(kWideDepthwiseGeometries, false);
  add_all(kDeepGeometries, true);
  add_all(kPointwiseGeometries, true);
  add_all(kBlockEdgeGeometries, true);
  for (int r = 0; r < random_count; ++r)
    list.push_back(random_problem(op, types[rng.uniform(0, static_cast<int64_t>(types.size()) - 1)], rng));
  return list;
}

ConvTensors make_conv_tensors(const ConvProblem &p, Rng &rng) {
  const dlk_conv2d_desc &d = p.desc;
  const ConvGeometry g(d);
  const bool forward = p.op == DLK_OP_CONV2D_FORWARD;
  // An output starts as NaN (float) or garbage (integer): all of it must be written.
  const auto output = [&](dlk_dtype dtype, int64_t elements) {
    HostTensor t(dtype, elements);
    for (int64_t i = 0; i < elements; ++i)
      t.set(i, is_float_type(dtype) ? NAN : random_value(rng, dtype, Fill::uniform));
    return t;
  };
  const auto input = [&](dlk_dtype dtype, int64_t elements) {
    HostTensor t(dtype, elements);
    fill(t, rng, p.fill);
    return t;
  };
  ConvTensors t;
  if (p.op != DLK_OP_CONV2D_BACKWARD_DATA) t.src = input(d.src_type, g.src_elements(d));
  if (p.op != DLK_OP_CONV2D_BACKWARD_WEIGHTS) t.weights = input(d.weights_type, g.weights_elements(d));
  if (!forward) t.diff_dst = input(d.dst_type, g.dst_elements(d));
  if (forward && p.bias) {
    // Int8 results are about +-48 before requantization; floats about +-1.
    const double magnitude = is_int8_type(d.src_type) ? 24 : 1;
    t.bias_tensor = HostTensor(DLK_DTYPE_F32, d.k);
    for (int64_t k = 0; k < d.k; ++k) {
      t.bias_tensor.set(k, magnitude * random_value(rng, DLK_DTYPE_F32, Fill::uniform));
      t.bias.push_back(static_cast<float>(t.bias_tensor.get(k)));
    }
  }
  if (forward) t.dst = output(d.dst_type, g.dst_elements(d));
  if (p.op == DLK_OP_CONV2D_BACKWARD_DATA) t.diff_src = output(d.src_type, g.src_elements(d));
  if (p.op == DLK_OP_CONV2D_BACKWARD_WEIGHTS) {
    t.diff_weights = output(d.weights_type, g.weights_elements(d));
    if (p.bias) t.diff_bias = output(DLK_DTYPE_F32, d.k);
  }
  return t;
}

}  // namespace dlk::conformance
