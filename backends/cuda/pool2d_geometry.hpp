// Which input elements a pooling output reads and which outputs read an input
// element: the index math of pool2d_kernels.cu, compiled for host and device so
// that tests/cuda/pool2d_geometry_test.cpp checks it on machines without a GPU.
#pragma once

#include <cstdint>

#include "core/numeric.hpp"  // DLK_HOST_DEVICE
#include "dlk/dlk.h"

namespace dlk::cuda {

struct PoolGeometry {
  int64_t n, c, h, w, oh, ow, kh, kw, stride_h, stride_w, pad_h, pad_w;
  bool nhwc;
  dlk_pool_kind kind;

  DLK_HOST_DEVICE int64_t planes() const { return n * c; }
  // Offsets of plane (image, channel) = image * c + channel; NHWC strides pixels by c.
  DLK_HOST_DEVICE int64_t src_plane(int64_t plane) const {
    return nhwc ? plane / c * h * w * c + plane % c : plane * h * w;
  }
  DLK_HOST_DEVICE int64_t dst_plane(int64_t plane) const {
    return nhwc ? plane / c * oh * ow * c + plane % c : plane * oh * ow;
  }
  DLK_HOST_DEVICE int64_t pixel_stride() const { return nhwc ? c : 1; }
  // Window of output (oy, ox) clipped to the image: rows [y0, y1), columns [x0, x1).
  DLK_HOST_DEVICE void window(int64_t oy, int64_t ox, int64_t &y0, int64_t &y1, int64_t &x0,
                              int64_t &x1) const {
    const int64_t y = oy * stride_h - pad_h, x = ox * stride_w - pad_w;
    y0 = y > 0 ? y : 0;
    y1 = y + kh < h ? y + kh : h;
    x0 = x > 0 ? x : 0;
    x1 = x + kw < w ? x + kw : w;
  }
  DLK_HOST_DEVICE int64_t divisor(int64_t y0, int64_t y1, int64_t x0, int64_t x1) const {
    return kind == DLK_POOL_AVG_INCLUDE_PADDING ? kh * kw : (y1 - y0) * (x1 - x0);
  }
};

// The outputs along one axis whose window holds input coordinate y: [first,
// last], empty when first > last. Clipping a window to the image never removes
// an image element from it, so the unclipped windows decide.
DLK_HOST_DEVICE inline void covering_outputs(int64_t y, int64_t pad, int64_t k, int64_t stride,
                                             int64_t outputs, int64_t &first, int64_t &last) {
  const int64_t hi = y + pad;          // oy * stride <= y + pad
  const int64_t lo = y + pad - k + 1;  // oy * stride + k - 1 >= y + pad
  first = lo <= 0 ? 0 : (lo + stride - 1) / stride;
  last = hi / stride;
  if (last > outputs - 1) last = outputs - 1;
}

}  // namespace dlk::cuda
