// A matrix of 16- or 32-bit elements turned around, in 16 x 16 blocks through
// registers (kernels/transpose_avx512.cpp): the rows of an NHWC image turned
// channel-major as the channel-block backward-weights kernel pads it, and its
// OIHW gradient turned into OHWI (conv2d_backward_weights.cpp). An element at a
// time, down the channels of a pixel-major image, the staging it replaced took
// 13 % of ResNet-50 res2a's f32 NHWC weight gradient (perf record, AMD EPYC
// Zen 5).
#pragma once

#include <cstddef>
#include <cstdint>

namespace dlk::cpu::kernels {

// out[j ld_out + i] = in[i ld_in + j] for i < rows, j < cols, elements of
// `elem` bytes (1, 2 or 4). AVX-512 F, BW and VL (the AVX-512 tier).
void transpose_avx512(const void *in, int64_t rows, int64_t cols, int64_t ld_in, size_t elem,
                      void *out, int64_t ld_out);

}  // namespace dlk::cpu::kernels
