// The CPU backend's packed convolution weights (dlk_conv2d_weights_create_for):
// the channel-lane kernel's weights, or the AMX implicit GEMM's panels, packed
// once, for the forward passes of that kernel to read instead of packing them
// on every call (at batch 1 the packing was 12-21 % of a ResNet-50 3x3 layer's
// time on the channel-lane kernel, about a sixth on the AMX kernel:
// docs/conv_pool_speed.md); for backward data, the same kernels' weights of
// the turned convolution (conv2d_turned_convolution), or at stride 2 the AMX
// kernel's of its four phases. The other kernels read
// the weights as given, or pack a few panels per call.
#pragma once

#include <array>
#include <cstdlib>
#include <memory>

#include "backends/cpu_avx512/kernels/conv2d_amx_kernels.hpp"
#include "backends/cpu_avx512/cpu_ops.hpp"
#include "backends/cpu_avx512/kernels/conv2d_channel_lanes_kernels.hpp"
#include "core/backend.hpp"

namespace dlk::cpu {

// A 64-byte aligned block of the handle's own.
struct FreeBlock {
  void operator()(void *p) const { std::free(p); }
};
using Block = std::unique_ptr<void, FreeBlock>;

// args: the convolution whose kernel reads the weights (for backward data the
// turned one, `turned`).
class ChannelLanesPackedWeights final : public core::PackedConv2dWeights {
 public:
  ChannelLanesPackedWeights(const core::Conv2dArgs &args, int threads, bool turned);
  const kernels::ChannelLanesWeights &weights() const { return weights_; }

 private:
  Block buffer_;
  kernels::ChannelLanesWeights weights_{};
};

// args: the forward convolution, or (`turned`) the one whose backward data
// reads the weights.
class AmxPackedWeights final : public core::PackedConv2dWeights {
 public:
  AmxPackedWeights(const core::Conv2dArgs &args, int threads, bool turned);
  const kernels::AmxConvWeights &weights() const { return weights_; }

 private:
  Block buffer_;
  kernels::AmxConvWeights weights_{};
};

// Backward data's four phases at stride 2 on the AMX implicit GEMM
// (conv2d_backward_data_amx_phases.hpp); args: the convolution whose backward
// data reads them.
class AmxPhasedPackedWeights final : public core::PackedConv2dWeights {
 public:
  AmxPhasedPackedWeights(const core::Conv2dArgs &args, int threads);
  const std::array<kernels::AmxConvWeights, 4> &phases() const { return phases_; }

 private:
  Block buffer_;
  std::array<kernels::AmxConvWeights, 4> phases_{};
};

// The packed form of args' weights where the forward on `isa` with `threads`
// runs a kernel that has one (the channel-lane kernel, the AMX implicit
// GEMM), else nullptr.
std::unique_ptr<core::PackedConv2dWeights> conv2d_pack_weights(const core::Conv2dArgs &args,
                                                               core::CpuIsa isa, int threads);
// The same for backward data's turned convolution (its channel-lane kernel,
// the AMX implicit GEMM).
std::unique_ptr<core::PackedConv2dWeights> conv2d_pack_backward_data_weights(
    const core::Conv2dArgs &args, core::CpuIsa isa, int threads);

// What a kernel reads of `packed` (nullptr: nothing).
PrepackedConv2dWeights prepacked_weights(const core::PackedConv2dWeights *packed);

}  // namespace dlk::cpu
