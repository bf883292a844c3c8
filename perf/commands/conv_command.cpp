// `dlk-perf conv`: dlk's NCHW and NHWC convolution (f32 and bf16: forward,
// backward data, backward weights; u8 x s8 -> s32: forward, as dlk.h and oneDNN
// 2.6 have no int8 backward) against oneDNN's in the same dtypes on the same
// data and thread count, interleaved: oneDNN with the same plain memory (nchw /
// oihw, or nhwc / ohwi), and in the blocked layouts it picks itself (`any`),
// whose reorders between those layouts and the plain arrays a framework keeps
// are timed apart (data every call,
// weights once per training step: once per call of each pass). Each point has
// the ratio to every peer and the % of its dtype's peak measured in the same
// run. oneDNN dispatches to AMX for bf16 and int8 on CPUs that have it, as
// dlk's GEMM does: `--onednn-max-isa avx512_core_bf16` caps it to its AVX-512
// kernels (once per process, so a capped comparison is a run of its own,
// labelled in the header and the JSON). On a device backend (cuda) the peer is
// cuDNN called directly on the same device buffers (perf/peers/cuda_peers.hpp)
// instead of oneDNN, and the peaks are the context's theoretical ones. The JSON
// schema is documented in perf/README.md ("dlk-perf/conv/4").
#include <cstdint>
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "dlk/dlk.hpp"
#include "perf/common/context_options.hpp"
#include "perf/workloads/conv_layers.hpp"
#include "perf/workloads/conv_point.hpp"
#include "perf/ceilings/dtype_peaks.hpp"
#include "perf/machine/machine_header.hpp"
#include "perf/peers/onednn_conv_peer.hpp"
#include "perf/peers/onednn_isa.hpp"
#include "perf/peers/onednn_peer.hpp"
#include "perf/common/output_options.hpp"
#include "perf/common/progress.hpp"
#include "perf/common/report_table.hpp"
#include "perf/charts/roofline_svg.hpp"
#include "perf/commands/subcommand.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {
namespace {

struct ConvOptions {
  ContextOptions context;
  std::vector<std::string> dtypes{"f32"};
  std::vector<std::string> sets{"resnet50_3x3", "lenet5"};
  std::vector<std::int64_t> batches{1};
  std::vector<std::string> passes{"fwd", "bwd_data", "bwd_weights"};
  std::vector<std::string> layers;  // empty: every layer of the sets
  std::vector<std::string> formats{"nchw"};
  std::vector<std::string> peers{"plain", "any"};
  std::string onednn_max_isa = "all";
  bool quick = false;
  OutputOptions output;
  TimingOptions timing = peer_interleaved_timing(0.3, 4);
};

ReportTable points_table() {
  return ReportTable({{"dtype", "dtype", 1, 0},
                      {"set", "set", 1, 0},
                      {"layer", "layer", 1, 0},
                      {"batch", "n", 1, 0},
                      {"pass", "pass", 1, 0},
                      {"format", "format", 1, 0},
                      {"shape", "c>k hxw kxk/s", 1, 0},
                      {"flops", "GFLOP", 1e-9, 3, Show::json},
                      {"threads", "threads", 1, 0, Show::json},
                      {"dlk_flops_per_second", "dlk G/s", 1e-9, 1},
                      {"percent_of_peak", "%peak", 1, 1},
                      {"onednn_any_flops_per_second", "any G/s", 1e-9, 1},
                      {"onednn_any_percent_of_peak", "any %peak", 1, 1, Show::json},
                      {"ratio_to_onednn_any", "x any", 1, 2},
                      {"packed_percent_of_peak", "pk %peak", 1, 1, Show::json},
                      {"packed_ratio_to_onednn_any", "pk x any", 1, 2},
                      {"onednn_reorder_seconds", "ro ms", 1e3, 3},
                      {"onednn_weights_reorder_seconds", "w ro ms", 1e3, 3},
                      {"ratio_to_onednn_any_with_data_reorders", "x any+data ro", 1, 2, Show::json},
                      {"ratio_to_onednn_any_with_reorders", "x any+ro", 1, 2},
                      {"onednn_plain_flops_per_second", "plain G/s", 1e-9, 1},
                      {"ratio_to_onednn_plain", "x plain", 1, 2},
                      {"cudnn_flops_per_second", "cudnn G/s", 1e-9, 1},
                      {"ratio_to_cudnn", "x cudnn", 1, 3},
                      {"dlk_seconds", "dlk ms", 1e3, 3, Show::json},
                      {"dlk_implementation", "dlk impl", 1, 0, Show::json},
                      {"dlk_packed_seconds", "packed ms", 1e3, 3, Show::json},
                      {"dlk_packed_implementation", "packed impl", 1, 0, Show::json},
                      {"onednn_any_implementation", "dnnl any impl", 1, 0, Show::json},
                      {"onednn_plain_implementation", "dnnl impl", 1, 0, Show::json},
                      {"cudnn_implementation", "cudnn impl", 1, 0, Show::json},
                      {"cudnn_relative_difference", "cudnn diff", 1, 0, Show::json}});
}

dlk_format format_from_name(const std::string &name) {
  return name == "nhwc" ? DLK_FORMAT_NHWC : DLK_FORMAT_NCHW;
}
const char *format_name(dlk_format format) { return format == DLK_FORMAT_NHWC ? "nhwc" : "nchw"; }

ConvPass pass_from_name(const std::string &name) {
  if (name == "bwd_data") return ConvPass::backward_data;
  if (name == "bwd_weights") return ConvPass::backward_weights;
  return ConvPass::forward;
}

// The dtypes of `--dtypes`: int8 is u8 x s8 -> s32 (zero points 0, no
// scales); int8_u8 u8 x s8 -> u8 as int8 inference chains its layers: a scale
// per output channel (`scales`, d.k of them) and ReLU, then requantized.
bool int8_dtype(const std::string &dtype) { return dtype == "int8" || dtype == "int8_u8"; }
void set_dtype(dlk_conv2d_desc &d, const std::string &dtype, const float *scales) {
  if (dtype == "bf16") d.src_type = d.weights_type = d.dst_type = DLK_DTYPE_BF16;
  if (int8_dtype(dtype))
    d.src_type = DLK_DTYPE_U8, d.weights_type = DLK_DTYPE_S8, d.dst_type = DLK_DTYPE_S32;
  if (dtype == "int8_u8") {
    d.dst_type = DLK_DTYPE_U8;
    d.scale_mode = DLK_SCALE_PER_CHANNEL, d.scales = scales;
    d.relu = 1;
  }
}

struct Report {
  dlk_context_info info{};
  PeakRow peak{};
  ReportTable points = points_table();
  double wall_seconds = 0;
};

// One layer at one batch and pass: dlk and the oneDNN forms on copies of the same data.
void add_point(Report &report, RooflineSvg &chart, dlk::Context &context, const std::string &dtype,
               const ConvLayer &layer, std::int64_t batch, ConvPass pass, dlk_format format, int threads,
               const TimingOptions &timing, const ConvPeers &peers) {
  dlk_conv2d_desc d = conv_desc(layer, batch);
  d.format = format;
  const std::vector<float> scales(static_cast<size_t>(d.k), 1.0f / 1024);
  set_dtype(d, dtype, scales.data());
  const bool device = is_device_backend(report.info);
  const ConvPointTiming p = device ? time_conv_point_device(context, d, pass, timing)
                                   : time_conv_point(context, d, pass, threads, timing, peers);
  const double peak = dtype == "bf16" ? report.peak.bf16 : int8_dtype(dtype) ? report.peak.int8 : report.peak.fp32;
  const std::string label = fmt::format("{} {} {} n{}{}", layer.name, dtype, conv_pass_name(pass), d.n,
                                        format == DLK_FORMAT_NHWC ? " nhwc" : "");
  if (device)
    chart.add(label, context, p.record, p.dlk_seconds, {{"cudnn", p.cudnn_seconds.value_or(0)}});
  else
    chart.add(label, context, p.record, p.dlk_seconds,
              {{"onednn plain", p.onednn_plain_seconds}, {"onednn blocked", p.onednn_any_seconds.value_or(0)}});
  Cell packed_peak, packed_any_ratio, packed_s, packed_impl;
  if (p.dlk_packed_seconds) {
    packed_s = *p.dlk_packed_seconds, packed_impl = p.dlk_packed_implementation;
    packed_peak = 100.0 * p.flops / *p.dlk_packed_seconds / peak;
    if (p.onednn_any_seconds) packed_any_ratio = *p.onednn_any_seconds / *p.dlk_packed_seconds;
  }
  Cell any_rate, any_peak, any_ratio, reorder_s, weights_reorder_s, any_data_ratio, any_reorder_ratio, plain_rate,
      plain_ratio, cudnn_rate, cudnn_ratio, cudnn_impl, cudnn_difference, any_impl, plain_impl;
  if (p.onednn_plain_seconds > 0)
    plain_rate = p.flops / p.onednn_plain_seconds, plain_ratio = p.onednn_plain_seconds / p.dlk_seconds;
  if (!p.onednn_plain_implementation.empty()) plain_impl = p.onednn_plain_implementation;
  if (!p.onednn_any_implementation.empty()) any_impl = p.onednn_any_implementation;
  if (p.cudnn_seconds) {
    cudnn_rate = p.flops / *p.cudnn_seconds, cudnn_ratio = *p.cudnn_seconds / p.dlk_seconds;
    cudnn_impl = p.cudnn_implementation, cudnn_difference = p.cudnn_relative_difference;
  }
  if (p.onednn_any_seconds) {
    const double any_s = *p.onednn_any_seconds, ro_s = p.onednn_reorder_seconds.value_or(0),
                 wro_s = p.onednn_weights_reorder_seconds.value_or(0);
    any_rate = p.flops / any_s, any_peak = 100.0 * p.flops / any_s / peak, any_ratio = any_s / p.dlk_seconds;
    reorder_s = ro_s, weights_reorder_s = wro_s;
    any_data_ratio = (any_s + ro_s) / p.dlk_seconds;
    any_reorder_ratio = (any_s + ro_s + wro_s) / p.dlk_seconds;
  }
  report.points.add_row(
      {dtype, layer.set, layer.name, d.n, std::string(conv_pass_name(pass)), std::string(format_name(format)),
       fmt::format("{}>{} {}x{} {}x{}/{}{}", d.c, d.k, d.h, d.w, d.kh, d.kw, d.stride_h,
                   d.groups > 1 ? fmt::format(" g{}", d.groups) : ""),
       p.flops, std::int64_t{threads}, p.flops / p.dlk_seconds, 100.0 * p.flops / p.dlk_seconds / peak, any_rate,
       any_peak, any_ratio, packed_peak, packed_any_ratio, reorder_s, weights_reorder_s, any_data_ratio,
       any_reorder_ratio, plain_rate, plain_ratio, cudnn_rate, cudnn_ratio, p.dlk_seconds,
       std::string(p.record.implementation), packed_s, packed_impl, any_impl, plain_impl, cudnn_impl,
       cudnn_difference});
}

std::string dlk_version_text() {
  const dlk_version v = dlk_get_version();
  return fmt::format("{}.{}.{}", v.major, v.minor, v.patch);
}

dlk_dtype src_dtype(const std::string &dtype) {
  return dtype == "bf16" ? DLK_DTYPE_BF16 : int8_dtype(dtype) ? DLK_DTYPE_U8 : DLK_DTYPE_F32;
}

dlk_dtype int8_dst(const std::string &dtype, dlk_dtype src) {
  return dtype == "int8" ? DLK_DTYPE_S32 : dtype == "int8_u8" ? DLK_DTYPE_U8 : src;
}

dlk_op conv_op(const std::string &pass) {
  return pass == "bwd_data"      ? DLK_OP_CONV2D_BACKWARD_DATA
         : pass == "bwd_weights" ? DLK_OP_CONV2D_BACKWARD_WEIGHTS
                                 : DLK_OP_CONV2D_FORWARD;
}

// The layers of the sets, in set order, with --layers applied. Throws
// std::invalid_argument for a --layers name no chosen set has.
std::vector<ConvLayer> chosen_layers(const ConvOptions &o) {
  std::vector<ConvLayer> all, chosen;
  for (const std::string &set : o.sets)
    for (const ConvLayer &layer : conv_layers(set)) all.push_back(layer);
  for (const std::string &name : o.layers)
    if (std::none_of(all.begin(), all.end(), [&](const ConvLayer &l) { return l.name == name; }))
      throw std::invalid_argument(fmt::format("dlk-perf conv --layers: no layer '{}' in the sets {}", name,
                                              fmt::join(o.sets, ",")));
  for (const ConvLayer &layer : all)
    if (o.layers.empty() || std::find(o.layers.begin(), o.layers.end(), layer.name) != o.layers.end())
      chosen.push_back(layer);
  return chosen;
}

int run_conv(const ConvOptions &o) {
  const double start = now_seconds();
  const std::vector<ConvLayer> layers = chosen_layers(o);
  // Before anything asks oneDNN about its ISA: it fixes it then, once per process.
  set_onednn_max_isa(o.onednn_max_isa);
  Report report;
  dlk::Context context(o.context.to_dlk());
  report.info = context.info();
  const int threads = report.info.num_threads;
  const MachineHeader header = context_machine_header(report.info);
  RooflineSvg chart(o.output.svg, report.info, o.output.progress());
  const bool device = is_device_backend(report.info);
  report.peak = device ? theoretical_dtype_peaks(report.info) : measure_dtype_peaks(report.info, threads);
  const std::string onednn_isa = device ? "" : onednn_effective_isa();
  const std::string caveat = onednn_isa_caveat(onednn_isa);
  ConvPeers peers;
  peers.plain = std::find(o.peers.begin(), o.peers.end(), "plain") != o.peers.end();
  peers.any = std::find(o.peers.begin(), o.peers.end(), "any") != o.peers.end();
  TimingOptions timing = o.timing;
  if (o.quick) timing = peer_interleaved_timing(0, 1), timing.min_samples = 1;
  struct Point {
    std::string dtype;
    ConvLayer layer;
    std::int64_t batch;
    std::string pass;
    dlk_format format;
  };
  std::vector<Point> points;
  std::vector<std::string> not_measured;
  for (const std::string &dtype : o.dtypes)
    for (const std::string &pass : o.passes) {
      const dlk_dtype src = src_dtype(dtype);
      const dlk_dtype wei = int8_dtype(dtype) ? DLK_DTYPE_S8 : src, dst = int8_dst(dtype, src);
      if (!context.supports(conv_op(pass), src, wei, dst)) {
        not_measured.push_back(
            int8_dtype(dtype)
                ? fmt::format("{} {}: dlk.h's backward passes take float types, and oneDNN 2.6 has no int8 "
                              "backward convolution",
                              dtype, pass)
                : fmt::format("{} {}: the {} backend does not implement it", dtype, pass, report.info.backend));
      }
    }
  // cuDNN, the device backends' peer here, is set up for NCHW tensors only.
  std::vector<dlk_format> formats;
  for (const std::string &name : o.formats) formats.push_back(format_from_name(name));
  if (device && std::find(formats.begin(), formats.end(), DLK_FORMAT_NHWC) != formats.end()) {
    not_measured.push_back("nhwc: the cuDNN peer of a device backend takes NCHW tensors only");
    formats.erase(std::remove(formats.begin(), formats.end(), DLK_FORMAT_NHWC), formats.end());
  }
  for (const dlk_format format : formats)
    for (const std::string &dtype : o.dtypes)
      for (const ConvLayer &layer : layers)
        for (const std::int64_t batch : layer.batch ? std::vector<std::int64_t>{layer.batch} : o.batches)
          for (const std::string &pass : o.passes) {
            const dlk_dtype src = src_dtype(dtype);
            const dlk_dtype wei = int8_dtype(dtype) ? DLK_DTYPE_S8 : src, dst = int8_dst(dtype, src);
            if (context.supports(conv_op(pass), src, wei, dst))
              points.push_back({dtype, layer, batch, pass, format});
          }
  Progress progress(o.output.progress());
  const double total = static_cast<double>(points.size());
  int done = 0;
  for (const Point &p : points) {
    progress.update(fmt::format("conv {} {} {} {} n{}", format_name(p.format), p.dtype, p.layer.name, p.pass, p.batch),
                    done++ / total);
    add_point(report, chart, context, p.dtype, p.layer, p.batch, pass_from_name(p.pass), p.format, threads, timing,
              peers);
  }
  progress.finish();
  std::vector<std::string> format_names;
  for (const dlk_format format : formats) format_names.emplace_back(format_name(format));
  chart.write(fmt::format("dlk-perf conv: {}, backend {}, {} threads", fmt::join(format_names, " and "),
                          report.info.backend, threads));
  report.wall_seconds = now_seconds() - start;
  if (o.output.json) {
    nlohmann::ordered_json doc;
    doc["schema"] = "dlk-perf/conv/4";
    doc["dlk"] = {{"version", dlk_version_text()}, {"backend", report.info.backend},
                  {"device", report.info.device}, {"isa", report.info.isa}};
    doc["threads"] = threads;
    doc["machine"] = header.json();
    doc["peak"] = {{"fp32_flops_per_second", report.peak.fp32},
                   {"bf16_flops_per_second", report.peak.bf16},
                   {"int8_ops_per_second", report.peak.int8},
                   {"method", report.peak.method},
                   {"bf16_method", report.peak.bf16_method},
                   {"int8_method", report.peak.int8_method}};
    if (device)
      doc["onednn"] = nullptr;
    else
      doc["onednn"] = {{"version", OneDnnMatmul::version()},
                       {"max_isa", o.onednn_max_isa},
                       {"effective_isa", onednn_isa},
                       {"peers", o.peers}};
    doc["timing"] = o.quick ? "quick" : "full";
    doc["not_measured"] = not_measured;
    doc["points"] = report.points.json();
    doc["wall_seconds"] = report.wall_seconds;
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  fmt::print("dlk-perf conv: dlk {}, backend {}, isa {}, device \"{}\", {} threads\n",
             dlk_version_text(), report.info.backend, report.info.isa, report.info.device, threads);
  fmt::print("\n{}\n", header.text());
  fmt::print("peak FP32 {:.1f} GFLOP/s ({}); BF16 {:.1f} GFLOP/s ({}); INT8 {:.1f} GOP/s ({})\n",
             report.peak.fp32 * 1e-9, report.peak.method, report.peak.bf16 * 1e-9,
             report.peak.bf16_method, report.peak.int8 * 1e-9, report.peak.int8_method);
  if (device)
    fmt::print("peer: cuDNN called directly on the same device buffers (its fastest algorithm by "
               "cudnnFind*AlgorithmEx, unfiltered; f32 FMA math, bf16 tensor ops); x cudnn = cuDNN time / dlk "
               "time\n");
  else
    fmt::print("peer: oneDNN {} dispatching to {} ({}){}\n", OneDnnMatmul::version(), onednn_isa,
               o.onednn_max_isa == "all" ? "no cap by --onednn-max-isa" : "capped by --onednn-max-isa " + o.onednn_max_isa,
               caveat.empty()
                   ? ""
                   : ": " + caveat +
                         "; --onednn-max-isa avx512_core_bf16 compares against its "
                         "AVX-512 kernels");
  for (const std::string &line : not_measured) fmt::print("not measured: {}\n", line);
  if (o.quick) fmt::print("--quick: one burst per candidate, a check that runs, not figures to quote\n");
  fmt::print("\nint8 = u8 x s8 -> s32, int8_u8 = u8 x s8 -> u8 (a scale per channel, ReLU); G/s = 10^9 FLOP (int8: OP) per second, median per call "
             "over interleaved bursts; %peak of the dtype's peak (AVX-512 loops: AMX can pass 100); "
             "x peer = peer time / dlk time (> 1: dlk faster); any = oneDNN in its own blocked "
             "layouts (format_tag::any); pk x any = the same against dlk's forward or backward data "
             "with its weights packed before the loop (dlk_conv2d_forward_packed, "
             "dlk_conv2d_backward_data_packed), as any's are; ro = its data reorders per call (src/dst or their diffs, the point's "
             "format in and out), w ro = its weights reorder (in; diff out for bwd_weights), once per "
             "training step; any+ro = with both, as a framework keeping plain tensors pays in training "
             "(forward inference keeps its weights reordered: JSON ratio_to_onednn_any_with_data_reorders); "
             "plain = oneDNN on the same plain memory as dlk (nchw/oihw, nhwc/ohwi), \"-\" where only its "
             "reference code runs (not timed)\n{}",
             report.points.text());
  fmt::print("\nwall time {:.1f} s\n", report.wall_seconds);
  return 0;
}

RunFn setup_conv(CLI::App &command) {
  auto o = std::make_shared<ConvOptions>();
  o->context.add_to(command);
  command.add_option("--dtypes", o->dtypes,
                     "f32 and bf16 (every pass), int8 (u8 x s8 -> s32; forward only), int8_u8 (u8 x s8 -> u8 "
                     "with a scale per output channel and ReLU, as int8 inference chains layers; forward only)")
      ->delimiter(',')
      ->check(CLI::IsMember({"f32", "bf16", "int8", "int8_u8"}))
      ->capture_default_str();
  command.add_option("--sets", o->sets,
                     "layer sets: resnet50 (every distinct convolution, 1x1 included), resnet50_3x3, "
                     "resnext50_3x3 (32 groups), vgg16, lenet5 (batch 64), depthwise_multiplier (groups = c, "
                     "few channels, batch 64), ragged_channels (3x3 over 28-30 and 60-62 channels)")
      ->delimiter(',')
      ->check(CLI::IsMember(conv_layer_sets()))
      ->capture_default_str();
  command.add_option("--layers", o->layers, "only these layers of the sets (e.g. res2a_3x3,conv3_1); default all")
      ->delimiter(',');
  command.add_option("--batches", o->batches, "batch sizes (lenet5 always runs at 64)")
      ->delimiter(',')
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1024}))
      ->capture_default_str();
  command.add_option("--passes", o->passes, "fwd, bwd_data, bwd_weights")
      ->delimiter(',')
      ->check(CLI::IsMember({"fwd", "bwd_data", "bwd_weights"}))
      ->capture_default_str();
  command.add_option("--formats", o->formats,
                     "data layouts: nchw (weights oihw), nhwc (weights ohwi); each point runs in each")
      ->delimiter(',')
      ->check(CLI::IsMember({"nchw", "nhwc"}))
      ->capture_default_str();
  command.add_option("--peers", o->peers,
                     "oneDNN forms to time: plain (the same memory as dlk), any (blocked, with its reorders)")
      ->delimiter(',')
      ->check(CLI::IsMember({"plain", "any"}))
      ->capture_default_str();
  command.add_option("--onednn-max-isa", o->onednn_max_isa,
                     "cap oneDNN's ISA (dnnl::set_max_cpu_isa) for the whole run; "
                     "avx512_core_bf16 leaves out AMX, which dlk's bf16 and int8 GEMM use where "
                     "the CPU has it")
      ->check(CLI::IsMember(onednn_isa_names()))
      ->capture_default_str();
  command.add_flag("--quick", o->quick, "one short burst per candidate: seconds per point, figures not to quote");
  o->output.add_to(command, "dlk-perf/conv/4", "the points on the roofline of the backend's ceilings");
  command.add_option("--min-seconds", o->timing.min_seconds,
                     "time each point at least this long (all implementations together)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command.add_option("--min-samples", o->timing.min_samples, "samples of each implementation")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  return [o] { return run_conv(*o); };
}

const RegisterSubcommand kConv{
    {"conv", "dlk's NCHW / NHWC convolution (f32, bf16 every pass; int8 fwd) against oneDNN plain and blocked, "
             "interleaved",
     setup_conv}};

}  // namespace
}  // namespace dlk::perf
