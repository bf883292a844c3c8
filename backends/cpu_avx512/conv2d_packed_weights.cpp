#include "backends/cpu_avx512/conv2d_packed_weights.hpp"

#include <string>

#include "backends/cpu_avx512/conv2d_backward_data_amx_phases.hpp"
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

ChannelLanesPackedWeights::ChannelLanesPackedWeights(const core::Conv2dArgs &args, int threads,
                                                     bool turned) {
  const kernels::ChannelLanesPlan plan(args, threads, turned);
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

AmxPackedWeights::AmxPackedWeights(const core::Conv2dArgs &args, int threads, bool turned) {
  const kernels::AmxConvPlan plan(turned ? conv2d_turned_convolution(args, args.weights) : args,
                                  threads);
  // The panels and int8's sums stay with the handle; NCHW's weights turned
  // into KRSC (for backward data the turned convolution's) are a step on the
  // way.
  const auto elem = static_cast<size_t>(plan.elem);
  buffer_ = allocate(bytes_of(plan.weight_elems, elem) + bytes_of(plan.sums, sizeof(int32_t)));
  // (The turned convolution's KRSC stage holds as many elements as the forward's.)
  const Block stage = allocate(bytes_of(plan.turned_weight_elems, elem));
  ScratchCarver carve(buffer_.get());
  void *panels = carve.carve<unsigned char>(plan.weight_elems * plan.elem);
  auto *sums = carve.carve<int32_t>(plan.sums);
  if (turned)
    kernels::conv2d_amx_pack_turned_weights(args, threads, plan,
                                            kernels::conv2d_amx_reversed_taps(args.desc),
                                            panels, stage.get());
  else kernels::conv2d_amx_pack_weights(args, threads, plan, panels, sums, stage.get());
  weights_ = {panels, sums};
}

AmxPhasedPackedWeights::AmxPhasedPackedWeights(const core::Conv2dArgs &args, int threads) {
  const AmxPhasePanels panels(args, threads);
  buffer_ = allocate(panels.bytes());
  const Block stage = allocate(panels.stage_bytes());
  panels.pack(args, threads, buffer_.get(), stage.get(), phases_);
}

std::unique_ptr<core::PackedConv2dWeights> conv2d_pack_weights(const core::Conv2dArgs &args,
                                                               core::CpuIsa isa, int threads) {
  if (depthwise_direct_applies(args, isa)) return nullptr;
  if (conv2d_forward_packed_runs_amx(args, isa, threads))
    return std::make_unique<AmxPackedWeights>(args, threads, false);
  if (conv2d_forward_packed_runs_channel_lanes(args, isa, threads))
    return std::make_unique<ChannelLanesPackedWeights>(args, threads, false);
  return nullptr;
}

std::unique_ptr<core::PackedConv2dWeights> conv2d_pack_backward_data_weights(
    const core::Conv2dArgs &args, core::CpuIsa isa, int threads) {
  if (conv2d_backward_data_packed_runs_amx(args, isa, threads))
    return std::make_unique<AmxPackedWeights>(args, threads, true);
  if (conv2d_backward_data_packed_runs_amx_phases(args, isa, threads))
    return std::make_unique<AmxPhasedPackedWeights>(args, threads);
  if (conv2d_backward_data_packed_runs_channel_lanes(args, isa, threads))
    return std::make_unique<ChannelLanesPackedWeights>(
        conv2d_turned_convolution(args, args.weights), threads, true);
  return nullptr;
}

PrepackedConv2dWeights prepacked_weights(const core::PackedConv2dWeights *packed) {
  PrepackedConv2dWeights prepacked;
  if (const auto *lanes = dynamic_cast<const ChannelLanesPackedWeights *>(packed))
    prepacked.lanes = &lanes->weights();
  if (const auto *amx = dynamic_cast<const AmxPackedWeights *>(packed))
    prepacked.amx = &amx->weights();
  if (const auto *phased = dynamic_cast<const AmxPhasedPackedWeights *>(packed))
    prepacked.amx_phases = phased->phases().data();
  return prepacked;
}

}  // namespace dlk::cpu
