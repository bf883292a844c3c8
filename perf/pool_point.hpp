// One pooling point as `dlk-perf pool` and `dlk-perf report` time it: dlk's f32
// NCHW call (max pooling with its argmax) and oneDNN's (forward_training with
// its workspace, or backward) on the same random data and thread count,
// interleaved.
#pragma once

#include <string>

#include "dlk/dlk.hpp"
#include "perf/timing.hpp"

namespace dlk::perf {

struct PoolPointTiming {
  dlk_op_record record{};  // dlk's last call
  // What a call must move: src and dst once each, and the int32 argmax for max pooling.
  double bytes = 0;
  double dlk_seconds = 0, onednn_seconds = 0;  // medians per call
  std::string onednn_implementation;
};

PoolPointTiming time_pool_point(dlk::Context &context, const dlk_pool2d_desc &desc, bool backward,
                                int threads, const TimingOptions &timing);

}  // namespace dlk::perf
