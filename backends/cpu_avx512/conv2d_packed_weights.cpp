#include "backends/cpu_avx512/conv2d_packed_weights.hpp"

#include <string>

#include "backends/cpu_avx512/cpu_ops.hpp"
#include "core/error.hpp"

namespace dlk::cpu {

ChannelLanesPackedWeights::ChannelLanesPackedWeights(const core::Conv2dArgs &args, int threads) {
  const kernels::ChannelLanesPlan plan(args, threads);
  const auto bytes_of = [](int64_t count) {
    return ScratchCarver::aligned(static_cast<size_t>(count) * sizeof(float));
  };
  const auto allocate = [](size_t bytes) {
    std::unique_ptr<void, Free> block(std::aligned_alloc(64, bytes > 0 ? bytes : 64));
    if (!block)
      throw core::Error(DLK_STATUS_OUT_OF_MEMORY, "dlk_conv2d_weights_create: cannot allocate " +
                                                      std::to_string(bytes) +
                                                      " bytes for the packed weights");
    return block;
  };
  // The packed weights and int8's starting sums stay with the handle; the
  // paired or quadded weights are a step on the way.
  buffer_ = allocate(bytes_of(plan.weight_floats) + bytes_of(plan.starts_count));
  const std::unique_ptr<void, Free> paired = allocate(bytes_of(plan.paired_floats));
  ScratchCarver carve(buffer_.get());
  auto *packed = carve.carve<float>(plan.weight_floats);
  auto *starts = carve.carve<int32_t>(plan.starts_count);
  kernels::conv2d_channel_lanes_pack_weights(args, threads, plan, packed, starts,
                                             static_cast<uint32_t *>(paired.get()));
  weights_ = {packed, starts};
}

std::unique_ptr<core::PackedConv2dWeights> conv2d_pack_weights(const core::Conv2dArgs &args,
                                                               core::CpuIsa isa, int threads) {
  if (depthwise_direct_applies(args, isa) ||
      !conv2d_forward_packed_runs_channel_lanes(args, isa, threads))
    return nullptr;
  return std::make_unique<ChannelLanesPackedWeights>(args, threads);
}

}  // namespace dlk::cpu
