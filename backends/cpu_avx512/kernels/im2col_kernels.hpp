// im2col panels written by a tier's vector instructions: the f32 NCHW forward
// panel of conv2d_im2col_packer.cpp, whose element loops spent most of their
// time on the bookkeeping of short runs of pixels (ResNet-50's 3x3 layers:
// 17-25 % of a forward call in the packer, 1 thread).
#pragma once

#include <cstdint>

#include "backends/cpu_avx512/conv2d_lowering.hpp"

namespace dlk::cpu::kernels {

// Taps [p0, p0 + kc) x output pixels [j0, j0 + cols) of the im2col matrix of
// one image and group of an NCHW f32 src (src points at the group's first
// channel), as `width`-wide rows: element (p, t) at out[p * width + t], 0 for
// padding taps and for t in [cols, width). width <= 64. Returns false, having
// written nothing, for shapes it does not take (the caller's loops do them).
using Im2colNchwF32 = bool (*)(const ConvShape &s, const float *src, int64_t p0, int64_t kc,
                               int64_t j0, int64_t cols, int width, float *out);
bool im2col_nchw_f32_avx512(const ConvShape &s, const float *src, int64_t p0, int64_t kc,
                            int64_t j0, int64_t cols, int width, float *out);

}  // namespace dlk::cpu::kernels
