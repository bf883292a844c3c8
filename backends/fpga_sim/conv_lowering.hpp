// A convolution as the array runs it: im2col turns each group of each image into
// a GEMM (pixels x taps) * (taps x output channels); col2im is its adjoint. The
// array's own address generator would do this on the fly; here the column
// matrix is built in f32 on the host so the GEMM sees plain rows.
#pragma once

#include <cstdint>
#include <vector>

#include "core/op_args.hpp"

namespace dlk::fpga_sim {

struct ConvGeometry {
  explicit ConvGeometry(const core::Conv2dArgs &args);

  int64_t n, c, h, w, k, kh, kw;
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  int64_t groups, cg, kg, oh, ow;
  bool nhwc;

  int64_t taps() const { return cg * kh * kw; }
  int64_t pixels() const { return oh * ow; }
  // Tap (ci, r, s) in the weights' order: KCRS for NCHW, KRSC for NHWC.
  int64_t tap(int64_t ci, int64_t r, int64_t s) const {
    return nhwc ? (r * kw + s) * cg + ci : (ci * kh + r) * kw + s;
  }
  // Element index of channel ci of group g, pixel y * w + x, of image i in src.
  int64_t src_index(int64_t i, int64_t g, int64_t ci, int64_t pixel) const {
    return nhwc ? (i * h * w + pixel) * c + g * cg + ci : ((i * c + g * cg + ci) * h * w) + pixel;
  }
  // The same in dst for output channel kk of group g, pixel oy * ow + ox.
  int64_t dst_index(int64_t i, int64_t g, int64_t kk, int64_t pixel) const {
    return nhwc ? (i * oh * ow + pixel) * k + g * kg + kk : ((i * k + g * kg + kk) * oh * ow) + pixel;
  }
};

// col (pixels x taps, row-major, f32) of image i, group g; padding taps are 0.
void im2col(const ConvGeometry &s, const void *src, dlk_dtype type, int64_t i, int64_t g,
            std::vector<float> &col);
// Adds col (pixels x taps) into image (cg x h x w, f32) of one group: the adjoint
// of im2col, pixels in order, then window rows, columns and channels.
void col2im_add(const ConvGeometry &s, const std::vector<float> &col, std::vector<float> &image);

}  // namespace dlk::fpga_sim
