// col2im kernels of each CPU tier: the adjoint of im2col, adding a column
// matrix back into the image it was read from (convolution backward-data).
// The GEMM writes the column matrix pixel-major (each output pixel's taps
// contiguous: C = diff_dst^T x weights, pixels the GEMM's rows), so NHWC adds
// contiguous runs of channels, and NCHW transposes blocks of an output row's
// pixels to add along the image's rows (kernels/col2im_tier.inc).
#pragma once

#include <cstdint>

#include "backends/cpu_avx512/conv2d_lowering.hpp"

namespace dlk::cpu::kernels {

// The f32 image col2im adds into: one group's channels, element (ci, y, x) at
// data[ci * channel_stride + (y * w + x) * pixel_stride]. NCHW needs
// pixel_stride 1, NHWC channel_stride 1.
struct Col2imImage {
  float *data;
  int64_t channel_stride, pixel_stride;
};

// Adds channels [c0, c1) of the column matrix of output rows [oy0, oy1) of
// one group into `image`, pixels counted from (oy0, 0), taps in the weights'
// order. NCHW: col holds the taps of those channels (c0 * kh * kw on), element
// (pixel, tap) at col[pixel * ld + tap - c0 * kh * kw] (pixel-major), or with
// tap_major at col[(tap - c0 * kh * kw) * ld + pixel]. NHWC: col holds every
// tap, pixel-major, element (pixel, tap) at col[pixel * ld + tap]. Taps that
// fall in the padding are dropped.
using Col2imAdd = void (*)(const ConvShape &s, const float *col, int64_t ld, bool tap_major,
                           int64_t oy0, int64_t oy1, int64_t c0, int64_t c1,
                           const Col2imImage &image);
void col2im_add_generic(const ConvShape &s, const float *col, int64_t ld, bool tap_major, int64_t oy0, int64_t oy1, int64_t c0,
                        int64_t c1, const Col2imImage &image);
void col2im_add_avx2(const ConvShape &s, const float *col, int64_t ld, bool tap_major, int64_t oy0, int64_t oy1, int64_t c0,
                     int64_t c1, const Col2imImage &image);
void col2im_add_avx512(const ConvShape &s, const float *col, int64_t ld, bool tap_major, int64_t oy0, int64_t oy1, int64_t c0,
                       int64_t c1, const Col2imImage &image);

}  // namespace dlk::cpu::kernels
