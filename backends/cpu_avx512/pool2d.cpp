// Pooling: picks the tier's kernels (kernels/pool2d_kernels.hpp) for the
// context's ISA and dtype, and the scratch the backward pass needs.
#include <algorithm>
#include <string>

#include "backends/cpu_avx512/cpu_ops.hpp"
#include "backends/cpu_avx512/kernels/pool2d_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

std::string implementation_name(const char *tier, dlk_pool_kind kind) {
  return std::string(tier) + (kind == DLK_POOL_MAX ? ":pool_max" : ":pool_avg");
}

core::CpuIsa tier_for(const core::Pool2dArgs &args, bool backward, core::CpuIsa isa) {
  return kernels::pool2d_tier_covers(args, backward) ? isa : core::CpuIsa::scalar;
}

}  // namespace

core::OpResult pool2d_forward(const core::Pool2dArgs &args, int threads, core::CpuIsa isa) {
  const core::CpuIsa tier = tier_for(args, false, isa);
  switch (tier) {
    case core::CpuIsa::avx512: kernels::pool2d_forward_avx512(args, threads); break;
    case core::CpuIsa::avx2: kernels::pool2d_forward_avx2(args, threads); break;
    default: kernels::pool2d_forward_generic(args, threads);
  }
  return {implementation_name(core::cpu_isa_name(tier), args.desc.kind), 0};
}

core::OpResult pool2d_backward(const core::Pool2dArgs &args, int threads, core::CpuIsa isa,
                               Scratch &scratch) {
  const core::CpuIsa tier = tier_for(args, true, isa);
  // f16/bf16 sum a plane (or an NHWC channel block) per thread in f32: as many
  // threads as the scratch bound holds, at least one.
  const int64_t per_thread = kernels::pool2d_backward_scratch_floats(args);
  int team = team_size(args.desc.n * args.desc.c, threads);
  if (per_thread > 0)
    team = static_cast<int>(std::clamp<int64_t>(
        static_cast<int64_t>(kScratchBound / sizeof(float)) / per_thread, 1, team));
  float *sums = static_cast<float *>(scratch.get(
      static_cast<size_t>(per_thread * team) * sizeof(float), "dlk_pool2d_backward",
      "summing an f16/bf16 gradient plane of h x w = " + std::to_string(args.desc.h) + " x " +
          std::to_string(args.desc.w) + " in f32"));
  switch (tier) {
    case core::CpuIsa::avx512: kernels::pool2d_backward_avx512(args, team, sums); break;
    case core::CpuIsa::avx2: kernels::pool2d_backward_avx2(args, team, sums); break;
    default: kernels::pool2d_backward_generic(args, team, sums);
  }
  return {implementation_name(core::cpu_isa_name(tier), args.desc.kind), 0};
}

}  // namespace dlk::cpu
