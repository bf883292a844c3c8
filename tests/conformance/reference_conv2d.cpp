#include "tests/conformance/reference_conv2d.hpp"

#include <cmath>

#include "tests/conformance/reference_int8.hpp"

namespace dlk::conformance {

namespace {

int64_t output_extent(int64_t in, int64_t kernel, int64_t pad, int64_t dilation, int64_t stride) {
  const int64_t span = dilation * (kernel - 1) + 1;
  return (in + 2 * pad - span) / stride + 1;
}

int64_t dense_offset(dlk_format f, int64_t c, int64_t h, int64_t w, int64_t in, int64_t ic,
                     int64_t iy, int64_t ix) {
  return f == DLK_FORMAT_NCHW ? ((in * c + ic) * h + iy) * w + ix : ((in * h + iy) * w + ix) * c + ic;
}

// Calls visit(iy, ix, ky, kx) for every tap of output pixel (oy, ox) that falls
// inside the image; taps in the padding contribute nothing.
template <class Visit>
void for_each_tap(const dlk_conv2d_desc &d, int64_t oy, int64_t ox, Visit visit) {
  for (int64_t ky = 0; ky < d.kh; ++ky) {
    const int64_t iy = oy * d.stride_h - d.pad_h + ky * d.dilation_h;
    if (iy < 0 || iy >= d.h) continue;
    for (int64_t kx = 0; kx < d.kw; ++kx) {
      const int64_t ix = ox * d.stride_w - d.pad_w + kx * d.dilation_w;
      if (ix < 0 || ix >= d.w) continue;
      visit(iy, ix, ky, kx);
    }
  }
}

// The integer forward result as dlk.h spells it, in the same f32 operations.
double integer_output(const dlk_conv2d_desc &d, int64_t k, int64_t sum,
                      const std::vector<float> &bias) {
  const int32_t acc = wrap_to_s32(sum);
  if (d.dst_type == DLK_DTYPE_S32) return d.relu && acc < 0 ? 0 : acc;
  const float multiplier = d.scale_mode == DLK_SCALE_PER_TENSOR    ? d.scales[0]
                           : d.scale_mode == DLK_SCALE_PER_CHANNEL ? d.scales[k]
                                                                   : 1.0f;
  float v = static_cast<float>(acc) * multiplier;
  if (!bias.empty()) v = v + bias[k];
  if (d.relu && v < 0) v = 0;
  return d.dst_type == DLK_DTYPE_F32 ? v : requantize(v, d.dst_zero_point, d.dst_type);
}

}  // namespace

ConvGeometry::ConvGeometry(const dlk_conv2d_desc &d)
    : oh(output_extent(d.h, d.kh, d.pad_h, d.dilation_h, d.stride_h)),
      ow(output_extent(d.w, d.kw, d.pad_w, d.dilation_w, d.stride_w)),
      c_per_group(d.c / d.groups),
      k_per_group(d.k / d.groups) {}

int64_t conv_src_offset(const dlk_conv2d_desc &d, int64_t n, int64_t c, int64_t y, int64_t x) {
  return dense_offset(d.format, d.c, d.h, d.w, n, c, y, x);
}

int64_t conv_dst_offset(const dlk_conv2d_desc &d, const ConvGeometry &g, int64_t n, int64_t k,
                        int64_t y, int64_t x) {
  return dense_offset(d.format, d.k, g.oh, g.ow, n, k, y, x);
}

int64_t conv_weights_offset(const dlk_conv2d_desc &d, const ConvGeometry &g, int64_t k,
                            int64_t c, int64_t y, int64_t x) {
  // k x (c/groups) x kh x kw (NCHW) or k x kh x kw x (c/groups) (NHWC): one image per k.
  return dense_offset(d.format, g.c_per_group, d.kh, d.kw, k, c, y, x);
}

Expected reference_conv2d_forward(const dlk_conv2d_desc &d, const HostTensor &src,
                                  const HostTensor &weights, const std::vector<float> &bias) {
  const ConvGeometry g(d);
  Expected out(g.dst_elements(d));
  const bool integer = is_int8_type(d.src_type);
  for (int64_t n = 0; n < d.n; ++n)
    for (int64_t k = 0; k < d.k; ++k) {
      const int64_t c0 = k / g.k_per_group * g.c_per_group;
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          int64_t int_sum = 0, taps = 0;
          double sum = 0, magnitude = 0;
          for (int64_t c = 0; c < g.c_per_group; ++c)
            for_each_tap(d, oy, ox, [&](int64_t iy, int64_t ix, int64_t ky, int64_t kx) {
              const double s = src.get(conv_src_offset(d, n, c0 + c, iy, ix));
              const double w = weights.get(conv_weights_offset(d, g, k, c, ky, kx));
              if (integer) {
                int_sum += (static_cast<int64_t>(s) - d.src_zero_point) * static_cast<int64_t>(w);
              } else {
                sum += s * w;
                magnitude += std::fabs(s * w);
                ++taps;
              }
            });
          const int64_t at = conv_dst_offset(d, g, n, k, oy, ox);
          if (integer) {
            out.exact(at, integer_output(d, k, int_sum, bias));
            continue;
          }
          if (!bias.empty()) {
            sum += bias[k];
            magnitude += std::fabs(bias[k]);
          }
          if (d.relu && sum < 0) sum = 0;
          out.within(at, sum, f32_result_bound(taps + 1, magnitude, sum, d.dst_type));
        }
    }
  return out;
}

Expected reference_conv2d_backward_data(const dlk_conv2d_desc &d, const HostTensor &diff_dst,
                                        const HostTensor &weights) {
  const ConvGeometry g(d);
  const int64_t elements = g.src_elements(d);
  std::vector<double> sum(elements, 0.0), magnitude(elements, 0.0);
  std::vector<int64_t> terms(elements, 0);
  // Scatter each output gradient back along the taps that produced the output.
  for (int64_t n = 0; n < d.n; ++n)
    for (int64_t k = 0; k < d.k; ++k) {
      const int64_t c0 = k / g.k_per_group * g.c_per_group;
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          const double dd = diff_dst.get(conv_dst_offset(d, g, n, k, oy, ox));
          for (int64_t c = 0; c < g.c_per_group; ++c)
            for_each_tap(d, oy, ox, [&](int64_t iy, int64_t ix, int64_t ky, int64_t kx) {
              const double term = dd * weights.get(conv_weights_offset(d, g, k, c, ky, kx));
              const int64_t at = conv_src_offset(d, n, c0 + c, iy, ix);
              sum[at] += term;
              magnitude[at] += std::fabs(term);
              ++terms[at];
            });
        }
    }
  Expected out(elements);
  for (int64_t i = 0; i < elements; ++i)
    out.within(i, sum[i], f32_result_bound(terms[i], magnitude[i], sum[i], d.src_type));
  return out;
}

ConvWeightGradients reference_conv2d_backward_weights(const dlk_conv2d_desc &d,
                                                      const HostTensor &src,
                                                      const HostTensor &diff_dst) {
  const ConvGeometry g(d);
  const int64_t elements = g.weights_elements(d);
  std::vector<double> sum(elements, 0.0), magnitude(elements, 0.0);
  std::vector<int64_t> terms(elements, 0);
  ConvWeightGradients out{Expected(elements), Expected(d.k)};
  for (int64_t k = 0; k < d.k; ++k) {
    const int64_t c0 = k / g.k_per_group * g.c_per_group;
    double bias_sum = 0, bias_magnitude = 0;
    for (int64_t n = 0; n < d.n; ++n)
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          const double dd = diff_dst.get(conv_dst_offset(d, g, n, k, oy, ox));
          bias_sum += dd;
          bias_magnitude += std::fabs(dd);
          for (int64_t c = 0; c < g.c_per_group; ++c)
            for_each_tap(d, oy, ox, [&](int64_t iy, int64_t ix, int64_t ky, int64_t kx) {
              const double term = dd * src.get(conv_src_offset(d, n, c0 + c, iy, ix));
              const int64_t at = conv_weights_offset(d, g, k, c, ky, kx);
              sum[at] += term;
              magnitude[at] += std::fabs(term);
              ++terms[at];
            });
        }
    out.diff_bias.within(k, bias_sum,
                         f32_result_bound(d.n * g.oh * g.ow, bias_magnitude, bias_sum, DLK_DTYPE_F32));
  }
  for (int64_t i = 0; i < elements; ++i)
    out.diff_weights.within(i, sum[i], f32_result_bound(terms[i], magnitude[i], sum[i], d.weights_type));
  return out;
}

}  // namespace dlk::conformance
