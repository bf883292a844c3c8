// Pooling kernels of each CPU tier. The generic tier, built for the x86-64
// baseline, covers every dtype; the AVX2 and AVX-512 tiers are the same loops
// built for their ISA, for the dtypes that matter for speed (f32 forward and
// backward, s8/u8 forward): pool2d_tier_covers says which.
//
// Rules every tier keeps (dlk.h): windows are clipped to the image, so padding
// never takes part in a max; the max is the first maximum in row-major window
// order, NaN counting as larger than any number (as PyTorch propagates NaN: a
// window holding a NaN has a NaN maximum, and argmax is the first NaN's index);
// average pooling divides by kh * kw or by the taps inside the image.
#pragma once

#include "core/backend.hpp"

namespace dlk::cpu::kernels {

bool pool2d_tier_covers(const core::Pool2dArgs &args, bool backward);

// Forward: dst (and argmax when not NULL).
void pool2d_forward_generic(const core::Pool2dArgs &args, int threads);
void pool2d_forward_avx2(const core::Pool2dArgs &args, int threads);
void pool2d_forward_avx512(const core::Pool2dArgs &args, int threads);
// The avx512 tier's f32 NCHW forward (kernels/pool2d_nchw_f32_avx512.cpp).
void pool2d_forward_nchw_f32_avx512(const core::Pool2dArgs &args, int threads);

// The outputs whose windows hold input row y (column x): rows (columns) lo .. hi
// of the output, none when lo > hi (a gap between windows when stride > kernel).
struct OutputRange {
  int64_t lo, hi;
};
OutputRange outputs_holding_row(const core::Pool2dArgs &args, int64_t y);
OutputRange outputs_holding_column(const core::Pool2dArgs &args, int64_t x);

// Backward: checks every argmax index before writing anything, then overwrites
// diff_src. f16/bf16 sum in f32 `scratch` of pool2d_backward_scratch_floats()
// per thread, on at most `threads` threads; f32 sums in diff_src itself.
int64_t pool2d_backward_scratch_floats(const core::Pool2dArgs &args);
void pool2d_backward_generic(const core::Pool2dArgs &args, int threads, float *scratch);
void pool2d_backward_avx2(const core::Pool2dArgs &args, int threads, float *scratch);
void pool2d_backward_avx512(const core::Pool2dArgs &args, int threads, float *scratch);
// The avx512 tier's f32 NCHW max backward (kernels/pool2d_max_backward_nchw_f32_avx512.cpp),
// after the argmax check: false, writing nothing, for a shape beyond it; a plane
// where some argmax lies outside its output's window goes to scatter_plane.
bool pool2d_max_backward_nchw_f32_avx512(const core::Pool2dArgs &args, int threads,
                                         void (*scatter_plane)(const core::Pool2dArgs &, int64_t plane));

}  // namespace dlk::cpu::kernels
