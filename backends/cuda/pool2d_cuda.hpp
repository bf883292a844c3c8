// Pooling kernels (pool2d_kernels.cu) by dlk's rules, not cuDNN's: windows clipped
// to the image, padding never in a max, the first maximum in row-major window
// order wins ties, argmax = y * w + x in the (n, c) plane, averages summed in f32
// (int8: exact s32, then round half to even and saturate) in row-major window
// order. Each thread computes what the CPU reference computes for its element in
// the same order, so results are bit-identical.
#pragma once

#include <cuda_runtime.h>

#include "core/backend.hpp"

namespace dlk::cuda {

void pool2d_forward_cuda(const core::Pool2dArgs &args, cudaStream_t stream);

// Backward gathers each diff_src element from the outputs whose windows hold it,
// in output order (the CPU's scatter order). Max pooling first checks that every
// argmax lies in its output's window (what forward produces; stricter than the
// CPU, which accepts any index in the plane): `flag` is a device int the check
// uses. A bad argmax is an invalid argument and nothing is written.
void pool2d_backward_cuda(const core::Pool2dArgs &args, int *flag, cudaStream_t stream);

}  // namespace dlk::cuda
