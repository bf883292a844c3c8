#include "backends/cpu_avx512/conv2d_packed_weights.hpp"

#include <string>

#include "backends/cpu_avx512/cpu_ops.hpp"
#include "core/error.hpp"

namespace dlk::cpu {

namespace {

Block allocate(size_t bytes) {
  // aligned_alloc wants a multiple of the alignment.
  const size_t size = ScratchCarver::aligned(bytes > 0 ? bytes : 64);
  Block block(std::aligned_alloc(64, size));
  if (!block)
    throw core::Error(DLK_STATUS_OUT_OF_MEMORY, "dlk_conv2d_weights_create: cannot allocate " +
                                                    std::to_string(bytes) +
                                                    " bytes for the packed weights");
  return block;
}

size_t bytes_of(int64_t count, size_t size) {
  return ScratchCarver::aligned(static_cast<size_t>(count) * size);
}

}  // namespace

ChannelLanesPackedWeights::ChannelLanesPackedWeights(const core::Conv2dArgs &args, int threads) {
  const kernels::ChannelLanesPlan plan(args, threads);
  const auto bytes_of = [](int64_t count) { return cpu::bytes_of(count, sizeof(float)); };
  // The packed weights and int8's starting sums stay with the handle; the
  // paired or quadded weights are a step on the way.
  buffer_ = allocate(bytes_of(plan.weight_floats) + bytes_of(plan.starts_count));
  const Block paired = allocate(bytes_of(plan.paired_floats));
  ScratchCarver carve(buffer_.get());
  auto *packed = carve.carve<float>(plan.weight_floats);
  auto *starts = carve.carve<int32_t>(plan.starts_count);
  kernels::conv2d_channel_lanes_pack_weights(args, threads, plan, packed, starts,
                                             static_cast<uint32_t *>(paired.get()));
  weights_ = {packed, starts};
}

AmxPackedWeights::AmxPackedWeights(const core::Conv2dArgs &args, int threads) {
  const kernels::AmxConvPlan plan(args, threads);
  // The panels and int8's sums stay with the handle; NCHW's weights turned
  // into KRSC are a step on the way.
  const auto elem = static_cast<size_t>(plan.elem);
  buffer_ = allocate(bytes_of(plan.weight_elems, elem) + bytes_of(plan.sums, sizeof(int32_t)));
  const Block turned = allocate(bytes_of(plan.turned_weight_elems, elem));
  ScratchCarver carve(buffer_.get());
  void *panels = carve.carve<unsigned char>(plan.weight_elems * plan.elem);
  auto *sums = carve.carve<int32_t>(plan.sums);
  kernels::conv2d_amx_pack_weights(args, threads, plan, panels, sums, turned.get());
  weights_ = {panels, sums};
}

std::unique_ptr<core::PackedConv2dWeights> conv2d_pack_weights(const core::Conv2dArgs &args,
                                                               core::CpuIsa isa, int threads) {
  if (depthwise_direct_applies(args, isa)) return nullptr;
  if (conv2d_forward_packed_runs_amx(args, isa, threads))
    return std::make_unique<AmxPackedWeights>(args, threads);
  if (conv2d_forward_packed_runs_channel_lanes(args, isa, threads))
    return std::make_unique<ChannelLanesPackedWeights>(args, threads);
  return nullptr;
}

}  // namespace dlk::cpu
