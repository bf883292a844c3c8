// col2im, the adjoint of im2col: a column matrix summed back into the image its
// columns were read from (convolution backward-data, conv2d_backward_data.cpp).
#pragma once

#include "backends/cpu_avx512/conv2d_lowering.hpp"
#include "backends/cpu_avx512/kernels/col2im_kernels.hpp"

namespace dlk::cpu {

// Adds the f32 column matrix `col` of channels [c0, c1) of output rows
// [oy0, oy1) of one group into `image`, with the kernels of `isa`
// (kernels::Col2imAdd: pixel-major rows of ld, or tap-major for NCHW).
// Padding taps are dropped.
void col2im_add(const ConvShape &s, const float *col, int64_t ld, bool tap_major, int64_t oy0,
                int64_t oy1, int64_t c0, int64_t c1, const kernels::Col2imImage &image,
                core::CpuIsa isa);

}  // namespace dlk::cpu
