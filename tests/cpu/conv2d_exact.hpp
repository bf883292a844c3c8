// What the exact-sum convolution tests share: a shape as they list it, its
// descriptor, the exact forward and backward-data sums of small-integer data,
// and the check of backward data against them.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "dlk/dlk.h"
#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {

// A convolution with the same stride, padding and dilation along both axes.
struct ConvShape {
  int64_t n, c, h, w, k, kh, kw, stride, pad, dilation, groups;
};

dlk_conv2d_desc conv_desc(const ConvShape &s, dlk_dtype type);
std::string describe(const ConvShape &s);

// The exact diff_src (NCHW) of diff_dst and the weights (OIHW per group).
std::vector<int64_t> exact_backward_data(const dlk_conv2d_desc &d, int64_t oh, int64_t ow,
                                         const std::vector<int> &diff_dst, const std::vector<int> &weights);

// The exact forward sums (without bias) of src less `zero`, in d's layouts.
std::vector<int64_t> exact_forward(const dlk_conv2d_desc &d, int64_t oh, int64_t ow,
                                   const std::vector<int> &src, const std::vector<int> &weights,
                                   int zero);

// Small integers as bf16 (exact).
std::vector<uint16_t> to_bf16(const std::vector<int> &v);

// Runs backward data of d (f32, f16 or bf16) on the integers diff_dst and
// weights, in d's layouts, and checks diff_src against the exact sums rounded
// once to the type.
void check_exact_backward_data(const Context &ctx, const dlk_conv2d_desc &d,
                               const std::vector<int> &diff_dst, const std::vector<int> &weights,
                               const std::vector<int64_t> &sums);

// A shape's descriptor (f32, NCHW) and its data: small integers, and the
// exact gradients.
struct GradientCase {
  dlk_conv2d_desc d;
  int64_t oh = 0, ow = 0;
  std::vector<int> src, weights, dy;
  std::vector<float> diff_src, diff_weights, diff_bias;
};

// Its data and gradients (range: the data's magnitude; 1 keeps f16's sums
// exact).
GradientCase gradient_case(const ConvShape &s, std::mt19937 &rng, int range = 3);

// Runs backward weights of d (f32, f16 or bf16) on the integers src and dy,
// in d's layouts, into diff_bias where not null, and checks diff_weights
// against the exact sums `expected` rounded once to the type.
void check_exact_backward_weights(const Context &ctx, const dlk_conv2d_desc &d,
                                  const std::vector<int> &src, const std::vector<int> &dy,
                                  const std::vector<float> &expected, float *diff_bias);

// An NCHW (or OIHW) tensor's values in NHWC (OHWI) order: n images of c x hw.
template <class V>
std::vector<V> to_nhwc(const std::vector<V> &v, int64_t n, int64_t c, int64_t hw) {
  std::vector<V> out(v.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t p = 0; p < hw; ++p) out[(i * hw + p) * c + ci] = v[(i * c + ci) * hw + p];
  return out;
}

}  // namespace dlk::cpu_test
