// The CPU backend's op implementations. Each returns the name of what ran for the
// verbose line; isa is the context's ISA tier, threads its thread count.
#pragma once

#include "backends/cpu_avx512/scratch.hpp"
#include "core/backend.hpp"

namespace dlk::cpu {
namespace kernels {
struct ChannelLanesWeights;
struct AmxConvWeights;
}  // namespace kernels

// Weights packed before the call (conv2d_packed_weights.hpp) in the layout of
// the kernel that reads them, or none.
struct PrepackedConv2dWeights {
  const kernels::ChannelLanesWeights *lanes = nullptr;  // the channel-lane kernel's
  const kernels::AmxConvWeights *amx = nullptr;         // the AMX implicit GEMM's
  // Backward data's four phases at stride 2 on the AMX implicit GEMM
  // (conv2d_backward_data_amx_phases.hpp), phase 2 py + px at [2 py + px].
  const kernels::AmxConvWeights *amx_phases = nullptr;
};

// Convolutions; scratch is the context's (scratch.hpp).
//
// Forward picks the direct depthwise kernels where depthwise_direct_applies:
// groups == c, any channel multiplier k / c, every dtype (f16/bf16/int8 staged
// an image at a time in f32; int8 up to 514 taps, where f32 sums exactly), while
// its scratch (conv2d_depthwise.cpp) fits the bound; every other forward
// convolution lowers to the GEMM, im2col packed into its panels (no scratch),
// or runs a direct kernel of its own (conv2d_im2col.cpp). One input channel
// is depthwise in name only: it goes to the direct kernel for few output
// channels where `isa` has it (NCHW). NHWC below 16 channels is staged as NCHW.
bool depthwise_direct_applies(const core::Conv2dArgs &args, core::CpuIsa isa);
core::OpResult conv2d_forward_depthwise(const core::Conv2dArgs &args, core::CpuIsa isa,
                                        int threads, Scratch &scratch);
// prepacked: read where their kernel runs.
core::OpResult conv2d_forward_im2col(const core::Conv2dArgs &args, core::CpuIsa isa, int threads,
                                     Scratch &scratch,
                                     const PrepackedConv2dWeights &prepacked = {});
// Whether conv2d_forward_im2col runs the channel-lane kernel (the AMX
// implicit GEMM) for args with its weights prepacked.
bool conv2d_forward_packed_runs_channel_lanes(const core::Conv2dArgs &args, core::CpuIsa isa,
                                              int threads);
bool conv2d_forward_packed_runs_amx(const core::Conv2dArgs &args, core::CpuIsa isa, int threads);
// The f32/f16/bf16 forward GEMM lowering alone (also backward-data's transposed
// lowering); returns the name of what ran.
const char *conv2d_forward_float_gemm(const core::Conv2dArgs &args, core::CpuIsa isa,
                                      int threads);
// Backward data as the forward of the turned convolution: diff_src =
// conv(diff_dst, the weights turned around: output and input channels
// swapped, the taps reversed; strides past 1 in phases, by the kernels that
// run them), its weights at `weights`.
core::Conv2dArgs conv2d_turned_convolution(const core::Conv2dArgs &args, const void *weights);
// Backward data: GEMM then col2im; the transposed lowering where col2im's band
// of one output row would exceed the scratch bound, or where a kernel that
// runs it takes the shape (conv2d_backward_data.cpp); prepacked: the turned
// convolution's weights, read where their kernel runs.
core::OpResult conv2d_backward_data(const core::Conv2dArgs &args, core::CpuIsa isa, int threads,
                                    Scratch &scratch,
                                    const PrepackedConv2dWeights &prepacked = {});
// Whether conv2d_backward_data runs the turned convolution on the channel-lane
// kernel (the AMX implicit GEMM) for args with its weights prepacked.
bool conv2d_backward_data_packed_runs_channel_lanes(const core::Conv2dArgs &args,
                                                    core::CpuIsa isa, int threads);
bool conv2d_backward_data_packed_runs_amx(const core::Conv2dArgs &args, core::CpuIsa isa,
                                          int threads);
bool conv2d_backward_data_packed_runs_amx_phases(const core::Conv2dArgs &args, core::CpuIsa isa,
                                                 int threads);
// Backward weights on packed im2col^T panels, diff_bias in the same GEMM.
core::OpResult conv2d_backward_weights(const core::Conv2dArgs &args, core::CpuIsa isa,
                                       int threads, Scratch &scratch);

// Pooling on the tier `isa` allows (f16/bf16 backward on the generic tier).
core::OpResult pool2d_forward(const core::Pool2dArgs &args, int threads, core::CpuIsa isa);
core::OpResult pool2d_backward(const core::Pool2dArgs &args, int threads, core::CpuIsa isa,
                               Scratch &scratch);

}  // namespace dlk::cpu
