// Double-precision reference of dlk_conv2d_{forward,backward_data,backward_weights},
// written from the rules in dlk.h (direct loops, no im2col) and sharing no code
// with any backend.
#pragma once

#include <cstdint>
#include <vector>

#include "dlk/dlk.h"
#include "tests/conformance/expected.hpp"
#include "tests/conformance/host_tensor.hpp"

namespace dlk::conformance {

// Shape of a convolution: output extent and channels per group.
struct ConvGeometry {
  int64_t oh = 0, ow = 0;
  int64_t c_per_group = 0, k_per_group = 0;
  explicit ConvGeometry(const dlk_conv2d_desc &d);
  int64_t src_elements(const dlk_conv2d_desc &d) const { return d.n * d.c * d.h * d.w; }
  int64_t dst_elements(const dlk_conv2d_desc &d) const { return d.n * d.k * oh * ow; }
  int64_t weights_elements(const dlk_conv2d_desc &d) const { return d.k * c_per_group * d.kh * d.kw; }
};

// Offsets of src (n, c, y, x), dst (n, k, y, x) and weights (k, c within the
// group, y, x) in the desc's format.
int64_t conv_src_offset(const dlk_conv2d_desc &d, int64_t n, int64_t c, int64_t y, int64_t x);
int64_t conv_dst_offset(const dlk_conv2d_desc &d, const ConvGeometry &g, int64_t n, int64_t k,
                        int64_t y, int64_t x);
int64_t conv_weights_offset(const dlk_conv2d_desc &d, const ConvGeometry &g, int64_t k,
                            int64_t c, int64_t y, int64_t x);

// dst; bias holds k values or is empty for none.
Expected reference_conv2d_forward(const dlk_conv2d_desc &d, const HostTensor &src,
                                  const HostTensor &weights, const std::vector<float> &bias);
// diff_src.
Expected reference_conv2d_backward_data(const dlk_conv2d_desc &d, const HostTensor &diff_dst,
                                        const HostTensor &weights);

struct ConvWeightGradients {
  Expected diff_weights, diff_bias;
};
ConvWeightGradients reference_conv2d_backward_weights(const dlk_conv2d_desc &d,
                                                      const HostTensor &src,
                                                      const HostTensor &diff_dst);

}  // namespace dlk::conformance
