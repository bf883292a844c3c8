// One convolution point as `dlk-perf conv` and `dlk-perf report` time it: dlk's
// call (NCHW or NHWC, as the desc says) and oneDNN's forms (plain: the same
// nchw / oihw or nhwc / ohwi memory; its own blocked layouts, and apart the
// reorders to and from them that such a framework pays) on copies of the same
// random data, on the same thread count, interleaved; or dlk's forward alone.
// A oneDNN form that runs oneDNN's reference code is not timed (int8 on plain
// nchw runs ref_int8 at about 0.15 GOP/s): its implementation says so.
#pragma once

#include <optional>
#include <string>

#include "dlk/dlk.hpp"
#include "perf/peers/onednn_conv_peer.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {

struct ConvPointTiming {
  dlk_op_record record{};  // dlk's last call: implementation, FLOPs, bytes
  double flops = 0;        // 2 x dst elements x (c / groups) x kh x kw
  double dlk_seconds = 0;  // median per call
  // Forward and backward data on a host backend: dlk_conv2d_forward_packed
  // (dlk_conv2d_backward_data_packed) with the weights packed before the loop
  // (dlk_conv2d_weights_create_for), as oneDNN-any's weights are.
  std::optional<double> dlk_packed_seconds;
  std::string dlk_packed_implementation;
  double onednn_plain_seconds = 0;  // median per call; 0: not timed
  std::string onednn_plain_implementation;
  // oneDNN in its blocked layouts; its data reorders (src / dst or their diffs,
  // in and out) and its weights reorder (in, or diff out), 0 where none is needed.
  std::optional<double> onednn_any_seconds, onednn_reorder_seconds, onednn_weights_reorder_seconds;
  std::string onednn_any_implementation;
  // On a device backend: cuDNN called directly instead (time_conv_point_device),
  // and max |dlk - cuDNN| / max |cuDNN| of the pass's output.
  std::optional<double> cudnn_seconds;
  std::string cudnn_implementation;
  double cudnn_relative_difference = 0;
};

// Which oneDNN forms a point times.
struct ConvPeers {
  bool plain = true, any = true;
};

// In the desc's types: f32 and bf16 for every pass; u8 x s8 -> s32 forward.
ConvPointTiming time_conv_point(dlk::Context &context, const dlk_conv2d_desc &desc, ConvPass pass,
                                int threads, const TimingOptions &timing, const ConvPeers &peers = {});

// dlk against cuDNN called directly on the same device buffers (perf/peers/
// cuda_peers.hpp), interleaved; f32 or bf16, NCHW.
ConvPointTiming time_conv_point_device(dlk::Context &context, const dlk_conv2d_desc &desc, ConvPass pass,
                                       const TimingOptions &timing);

// dlk's forward alone, in the desc's types (src and weights random, see
// random_elements.hpp): no peer.
ConvPointTiming time_conv_forward_alone(dlk::Context &context, const dlk_conv2d_desc &desc,
                                        const TimingOptions &timing);

}  // namespace dlk::perf
