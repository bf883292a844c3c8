#include "perf/workloads/conv_point.hpp"

#include <cstdint>
#include <memory>
#include <vector>

#include "perf/common/random_elements.hpp"

namespace dlk::perf {

ConvPointTiming time_conv_point(dlk::Context &context, const dlk_conv2d_desc &d, ConvPass pass,
                                int threads, const TimingOptions &timing) {
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
  const OneDnnConv plain(d, pass, false, {src.data(), wei.data(), dst.data()});
  candidates.push_back({"onednn_nchw", [&] { plain.run(threads); }});
  std::unique_ptr<OneDnnConv> blocked;
  if (pass == ConvPass::forward) {
    blocked = std::make_unique<OneDnnConv>(d, pass, true, ConvTensors{src.data(), wei.data(), dst.data()});
    candidates.push_back({"onednn_any", [&] { blocked->run(threads); }});
    candidates.push_back({"onednn_any_reorders", [&] { blocked->reorder_in_out(threads); }});
  }
  const std::vector<Timing> t = time_interleaved(candidates, timing);
  ConvPointTiming p;
  p.record = context.last_op();
  p.flops = 2.0 * static_cast<double>(dst_n) * static_cast<double>(d.c / d.groups) * d.kh * d.kw;
  p.dlk_seconds = t[0].summary().median;
  p.onednn_nchw_seconds = t[1].summary().median;
  p.onednn_nchw_implementation = plain.implementation();
  if (blocked) {
    p.onednn_any_seconds = t[2].summary().median;
    p.onednn_reorder_seconds = t[3].summary().median;
    p.onednn_any_implementation = blocked->implementation();
  }
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
