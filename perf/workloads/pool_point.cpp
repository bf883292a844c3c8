#include "perf/workloads/pool_point.hpp"

#include <cstdint>
#include <random>
#include <vector>

#include "perf/peers/onednn_conv_peer.hpp"

namespace dlk::perf {

PoolPointTiming time_pool_point(dlk::Context &context, const dlk_pool2d_desc &d, PoolPass pass,
                                int threads, const TimingOptions &timing) {
  const auto [oh, ow] = dlk::output_shape(d);
  const std::int64_t src_n = d.n * d.c * d.h * d.w, dst_n = d.n * d.c * oh * ow;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> src(static_cast<size_t>(src_n)), dst(static_cast<size_t>(dst_n));
  for (float &x : src) x = u(rng);
  for (float &x : dst) x = u(rng);
  const bool max = d.kind == DLK_POOL_MAX, backward = pass == PoolPass::backward;
  const bool argmax_out = max && pass == PoolPass::forward_training;
  dlk::Buffer<float> src_dev(context, src.size()), dst_dev(context, dst.size());
  dlk::Buffer<int32_t> argmax(context, max ? dst.size() : 0);
  src_dev.upload(src.data());
  context.pool2d_forward(d, src_dev.get(), dst_dev.get(), max ? argmax.get() : nullptr);
  dst_dev.upload(dst.data());
  const OneDnnPool peer(d, pass, src.data(), dst.data());
  const std::vector<Candidate> candidates = {
      {"dlk",
       [&] {
         if (backward) context.pool2d_backward(d, dst_dev.get(), max ? argmax.get() : nullptr, src_dev.get());
         else context.pool2d_forward(d, src_dev.get(), dst_dev.get(), argmax_out ? argmax.get() : nullptr);
         context.synchronize();
       }},
      {"onednn", [&] { peer.run(threads); }}};
  const std::vector<Timing> t = time_interleaved(candidates, timing);
  PoolPointTiming p;
  p.record = context.last_op();
  p.bytes = 4.0 * (src_n + dst_n) + (max && pass != PoolPass::forward_inference ? 4.0 * dst_n : 0.0);
  p.dlk_seconds = t[0].summary().median;
  p.onednn_seconds = t[1].summary().median;
  p.onednn_implementation = peer.implementation();
  return p;
}

}  // namespace dlk::perf
