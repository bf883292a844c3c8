// One pooling point as `dlk-perf pool` and `dlk-perf report` time it: dlk's f32
// NCHW call and oneDNN's on the same random data and thread count, interleaved:
// forward_training (max pooling: dlk writes its argmax, oneDNN its workspace),
// forward_inference (neither), or backward.
#pragma once

#include <string>

#include "dlk/dlk.hpp"
#include "perf/peers/onednn_conv_peer.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {

struct PoolPointTiming {
  dlk_op_record record{};  // dlk's last call
  // What a call must move: src and dst once each, and the int32 argmax of max
  // pooling (but forward_inference).
  double bytes = 0;
  double dlk_seconds = 0, onednn_seconds = 0;  // medians per call
  std::string onednn_implementation;
};

PoolPointTiming time_pool_point(dlk::Context &context, const dlk_pool2d_desc &desc, PoolPass pass,
                                int threads, const TimingOptions &timing);

}  // namespace dlk::perf
