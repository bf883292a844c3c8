#include "perf/workloads/conv_point.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "perf/common/random_elements.hpp"
#include "perf/peers/cuda_peers.hpp"

namespace dlk::perf {

ConvPointTiming time_conv_point(dlk::Context &context, const dlk_conv2d_desc &d, ConvPass pass,
                                int threads, const TimingOptions &timing, const ConvPeers &peers) {
  const auto [oh, ow] = dlk::output_shape(d);
  const size_t src_n = static_cast<size_t>(d.n * d.c * d.h * d.w),
               wei_n = static_cast<size_t>(d.k * (d.c / d.groups) * d.kh * d.kw),
               dst_n = static_cast<size_t>(d.n * d.k * oh * ow);
  // dst is an input of the backward passes (diff_dst), only written by forward.
  std::vector<unsigned char> src = random_elements(d.src_type, src_n, 1),
                             wei = random_elements(d.weights_type, wei_n, 2),
                             dst = pass == ConvPass::forward
                                       ? std::vector<unsigned char>(dst_n * dlk_dtype_size(d.dst_type))
                                       : random_elements(d.dst_type, dst_n, 3);
  dlk::Buffer<unsigned char> src_dev(context, src.size()), wei_dev(context, wei.size()),
      dst_dev(context, dst.size());
  src_dev.upload(src.data()), wei_dev.upload(wei.data()), dst_dev.upload(dst.data());

  std::vector<Candidate> candidates;
  candidates.push_back({"dlk", [&] {
                          switch (pass) {
                            case ConvPass::forward:
                              context.conv2d_forward(d, src_dev.get(), wei_dev.get(), nullptr, dst_dev.get());
                              break;
                            case ConvPass::backward_data:
                              context.conv2d_backward_data(d, dst_dev.get(), wei_dev.get(), src_dev.get());
                              break;
                            case ConvPass::backward_weights:
                              context.conv2d_backward_weights(d, src_dev.get(), dst_dev.get(), wei_dev.get(), nullptr);
                              break;
                          }
                          context.synchronize();
                        }});
  // Both oneDNN forms on the same host arrays: each writes only its pass's output.
  std::unique_ptr<OneDnnConv> plain, blocked;
  int packed_at = -1, plain_at = -1, any_at = -1, data_reorder_at = -1, weights_reorder_at = -1;
  const auto add = [&](const char *name, std::function<void()> run) {
    candidates.push_back({name, std::move(run)});
    return static_cast<int>(candidates.size()) - 1;
  };
  // The passes that read the weights as they are: packed once before the
  // loop, as oneDNN-any's are reordered.
  dlk::Conv2dWeights packed;
  const auto run_packed = [&] {
    if (pass == ConvPass::forward)
      context.conv2d_forward_packed(d, src_dev.get(), packed.get(), nullptr, dst_dev.get());
    else
      context.conv2d_backward_data_packed(d, dst_dev.get(), packed.get(), src_dev.get());
    context.synchronize();
  };
  if (pass != ConvPass::backward_weights) {
    packed = dlk::Conv2dWeights(
        context, d, wei_dev.get(),
        pass == ConvPass::forward ? DLK_CONV2D_PASS_FORWARD : DLK_CONV2D_PASS_BACKWARD_DATA);
    packed_at = add("dlk_packed", run_packed);
  }
  if (peers.plain) {
    plain = std::make_unique<OneDnnConv>(d, pass, false, ConvTensors{src.data(), wei.data(), dst.data()}, threads);
    if (!plain->is_reference()) plain_at = add("onednn_plain", [&] { plain->run(threads); });
  }
  if (peers.any) {
    blocked = std::make_unique<OneDnnConv>(d, pass, true, ConvTensors{src.data(), wei.data(), dst.data()}, threads);
    if (!blocked->is_reference()) {
      any_at = add("onednn_any", [&] { blocked->run(threads); });
      if (blocked->has_data_reorders())
        data_reorder_at = add("onednn_any_reorders", [&] { blocked->reorder_data(threads); });
      if (blocked->has_weights_reorder())
        weights_reorder_at = add("onednn_any_weights_reorder", [&] { blocked->reorder_weights(threads); });
    }
  }
  const std::vector<Timing> t = time_interleaved(candidates, timing);
  const auto median = [&](int at) { return at < 0 ? 0.0 : t[static_cast<size_t>(at)].summary().median; };
  ConvPointTiming p;
  if (packed_at >= 0) {
    run_packed();
    p.dlk_packed_implementation = context.last_op().implementation;
    p.dlk_packed_seconds = median(packed_at);
  }
  candidates[0].run();  // dlk's record is the plain call's
  p.record = context.last_op();
  p.flops = 2.0 * static_cast<double>(dst_n) * static_cast<double>(d.c / d.groups) * d.kh * d.kw;
  p.dlk_seconds = t[0].summary().median;
  if (plain) {
    p.onednn_plain_seconds = median(plain_at);
    p.onednn_plain_implementation = plain->implementation() + (plain_at < 0 ? " (reference: not timed)" : "");
  }
  if (blocked) {
    p.onednn_any_implementation = blocked->implementation() + (any_at < 0 ? " (reference: not timed)" : "");
    if (any_at >= 0) {
      p.onednn_any_seconds = median(any_at);
      p.onednn_reorder_seconds = median(data_reorder_at);
      p.onednn_weights_reorder_seconds = median(weights_reorder_at);
    }
  }
  return p;
}

namespace {

// An f32 or bf16 element of a host copy.
double element(const std::vector<unsigned char> &data, dlk_dtype type, size_t i) {
  uint32_t bits = 0;
  if (type == DLK_DTYPE_BF16) {
    uint16_t half;
    std::memcpy(&half, &data[2 * i], 2);
    bits = uint32_t{half} << 16;
  } else {
    std::memcpy(&bits, &data[4 * i], 4);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

double max_relative_difference(const std::vector<unsigned char> &dlk, const std::vector<unsigned char> &peer,
                               dlk_dtype type) {
  double max_diff = 0, max_ref = 0;
  for (size_t i = 0; i < peer.size() / dlk_dtype_size(type); ++i) {
    const double ref = element(peer, type, i);
    max_diff = std::max(max_diff, std::fabs(element(dlk, type, i) - ref));
    max_ref = std::max(max_ref, std::fabs(ref));
  }
  return max_ref > 0 ? max_diff / max_ref : max_diff;
}

}  // namespace

ConvPointTiming time_conv_point_device(dlk::Context &context, const dlk_conv2d_desc &d, ConvPass pass,
                                       const TimingOptions &timing) {
  const auto [oh, ow] = dlk::output_shape(d);
  const size_t src_n = static_cast<size_t>(d.n * d.c * d.h * d.w),
               wei_n = static_cast<size_t>(d.k * (d.c / d.groups) * d.kh * d.kw),
               dst_n = static_cast<size_t>(d.n * d.k * oh * ow);
  const std::vector<unsigned char> src = random_elements(d.src_type, src_n, 1),
                                   wei = random_elements(d.weights_type, wei_n, 2),
                                   dst = random_elements(d.dst_type, dst_n, 3);
  dlk::Buffer<unsigned char> src_dev(context, src.size()), wei_dev(context, wei.size()), dst_dev(context, dst.size());
  src_dev.upload(src.data()), wei_dev.upload(wei.data()), dst_dev.upload(dst.data());
  // The peer reads the same buffers before dlk's first call writes one of them.
  const std::unique_ptr<DevicePeer> peer = make_cudnn_conv_peer(d, pass, src_dev.get(), wei_dev.get(), dst_dev.get());
  dlk::Buffer<unsigned char> &output = pass == ConvPass::forward         ? dst_dev
                                       : pass == ConvPass::backward_data ? src_dev
                                                                         : wei_dev;
  const std::vector<Timing> t = time_interleaved(
      {{"dlk",
        [&] {
          switch (pass) {
            case ConvPass::forward:
              context.conv2d_forward(d, src_dev.get(), wei_dev.get(), nullptr, dst_dev.get());
              break;
            case ConvPass::backward_data:
              context.conv2d_backward_data(d, dst_dev.get(), wei_dev.get(), src_dev.get());
              break;
            case ConvPass::backward_weights:
              context.conv2d_backward_weights(d, src_dev.get(), dst_dev.get(), wei_dev.get(), nullptr);
              break;
          }
          context.synchronize();
        }},
       {"cudnn", [&] { peer->run(); }}},
      timing);
  ConvPointTiming p;
  p.record = context.last_op();
  p.flops = 2.0 * static_cast<double>(dst_n) * static_cast<double>(d.c / d.groups) * d.kh * d.kw;
  p.dlk_seconds = t[0].summary().median;
  p.cudnn_seconds = t[1].summary().median;
  p.cudnn_implementation = peer->implementation();
  std::vector<unsigned char> dlk_out(output.size()), peer_out(peer->output_bytes());
  output.download(dlk_out.data());
  if (peer->download_output(peer_out.data()) && peer_out.size() == dlk_out.size())
    p.cudnn_relative_difference = max_relative_difference(dlk_out, peer_out, d.dst_type);
  return p;
}

ConvPointTiming time_conv_forward_alone(dlk::Context &context, const dlk_conv2d_desc &d,
                                        const TimingOptions &timing) {
  const auto [oh, ow] = dlk::output_shape(d);
  const size_t src_n = static_cast<size_t>(d.n * d.c * d.h * d.w),
               wei_n = static_cast<size_t>(d.k * (d.c / d.groups) * d.kh * d.kw),
               dst_n = static_cast<size_t>(d.n * d.k * oh * ow);
  const std::vector<unsigned char> src = random_elements(d.src_type, src_n, 1),
                                   wei = random_elements(d.weights_type, wei_n, 2);
  dlk::Buffer<unsigned char> src_dev(context, src.size()), wei_dev(context, wei.size()),
      dst_dev(context, dst_n * dlk_dtype_size(d.dst_type));
  src_dev.upload(src.data()), wei_dev.upload(wei.data());
  const std::vector<Timing> t = time_interleaved(
      {{"dlk",
        [&] {
          context.conv2d_forward(d, src_dev.get(), wei_dev.get(), nullptr, dst_dev.get());
          context.synchronize();
        }}},
      timing);
  ConvPointTiming p;
  p.record = context.last_op();
  p.flops = 2.0 * static_cast<double>(dst_n) * static_cast<double>(d.c / d.groups) * d.kh * d.kw;
  p.dlk_seconds = t[0].summary().median;
  return p;
}

}  // namespace dlk::perf
