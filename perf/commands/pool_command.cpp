// `dlk-perf pool`: dlk's f32 NCHW pooling against oneDNN's on the same data and
// thread count, interleaved, on the pooling layers of VGG-16 and ResNet-50:
// fwd (max pooling with argmax against forward_training with its workspace),
// inf (no argmax against forward_inference), bwd. The JSON schema is documented
// in perf/README.md ("dlk-perf/pool/1").
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "dlk/dlk.hpp"
#include "perf/common/context_options.hpp"
#include "perf/workloads/conv_layers.hpp"
#include "perf/machine/machine_header.hpp"
#include "perf/common/output_options.hpp"
#include "perf/workloads/pool_point.hpp"
#include "perf/common/progress.hpp"
#include "perf/common/report_table.hpp"
#include "perf/charts/roofline_svg.hpp"
#include "perf/commands/subcommand.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {
namespace {

struct PoolOptions {
  ContextOptions context;
  std::vector<std::int64_t> batches{1, 32};
  std::vector<std::string> passes{"fwd", "inf", "bwd"};
  OutputOptions output;
  TimingOptions timing = peer_interleaved_timing(0.3, 4);
};

ReportTable points_table() {
  return ReportTable({{"layer", "layer", 1, 0},
                      {"batch", "n", 1, 0},
                      {"pass", "pass", 1, 0},
                      {"shape", "c hxw kxk/s", 1, 0},
                      {"bytes", "MB moved", 1e-6, 1},
                      {"threads", "threads", 1, 0, Show::json},
                      {"dlk_bytes_per_second", "dlk GB/s", 1e-9, 2},
                      {"onednn_bytes_per_second", "dnnl GB/s", 1e-9, 2},
                      {"ratio_to_onednn", "x dnnl", 1, 2},
                      {"dlk_seconds", "dlk ms", 1e3, 3},
                      {"onednn_seconds", "dnnl ms", 1e3, 3, Show::json},
                      {"dlk_implementation", "dlk impl", 1, 0, Show::json},
                      {"onednn_implementation", "dnnl impl", 1, 0, Show::json}});
}

PoolPass pool_pass(const std::string &name) {
  if (name == "inf") return PoolPass::forward_inference;
  return name == "bwd" ? PoolPass::backward : PoolPass::forward_training;
}

void add_point(ReportTable &table, RooflineSvg &chart, dlk::Context &context, const PoolLayer &layer,
               std::int64_t batch, const std::string &pass, int threads, const TimingOptions &timing) {
  const dlk_pool2d_desc d = pool_desc(layer, batch);
  const PoolPointTiming p = time_pool_point(context, d, pool_pass(pass), threads, timing);
  chart.add(fmt::format("{} {} n{}", layer.name, pass, d.n), context, p.record, p.dlk_seconds,
            {{"onednn", p.onednn_seconds}});
  table.add_row({layer.name, d.n, pass,
                 fmt::format("{} {}x{} {}x{}/{}", d.c, d.h, d.w, d.kh, d.kw, d.stride_h), p.bytes,
                 std::int64_t{threads}, p.bytes / p.dlk_seconds, p.bytes / p.onednn_seconds,
                 p.onednn_seconds / p.dlk_seconds, p.dlk_seconds, p.onednn_seconds,
                 std::string(p.record.implementation), p.onednn_implementation});
}

int run_pool(const PoolOptions &o) {
  const double start = now_seconds();
  dlk::Context context(o.context.to_dlk());
  const dlk_context_info info = context.info();
  const MachineHeader header = context_machine_header(info);
  RooflineSvg chart(o.output.svg, info, o.output.progress());
  ReportTable table = points_table();
  Progress progress(o.output.progress());
  const double total = static_cast<double>(pool_layers().size() * o.batches.size() * o.passes.size());
  int done = 0;
  for (const PoolLayer &layer : pool_layers())
    for (const std::int64_t batch : o.batches)
      for (const std::string &pass : o.passes) {
        progress.update(fmt::format("pool {} {} n{}", layer.name, pass, batch), done++ / total);
        add_point(table, chart, context, layer, batch, pass, info.num_threads, o.timing);
      }
  progress.finish();
  chart.write(fmt::format("dlk-perf pool: f32 NCHW, backend {}, {} threads", info.backend, info.num_threads));
  const double wall = now_seconds() - start;
  if (o.output.json) {
    nlohmann::ordered_json doc;
    doc["schema"] = "dlk-perf/pool/1";
    doc["dlk"] = {{"backend", info.backend}, {"device", info.device}, {"isa", info.isa}};
    doc["threads"] = info.num_threads;
    doc["machine"] = header.json();
    doc["points"] = table.json();
    doc["wall_seconds"] = wall;
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  fmt::print("dlk-perf pool: backend {}, isa {}, device \"{}\", {} threads\n", info.backend,
             info.isa, info.device, info.num_threads);
  fmt::print("\n{}", header.text());
  fmt::print("\nf32 NCHW; fwd: max pooling writes its argmax (dlk) or workspace (oneDNN "
             "forward_training); inf: neither (oneDNN forward_inference); GB/s = src + dst (+ int32 "
             "argmax but inf) bytes per second, median over interleaved bursts; x dnnl = oneDNN "
             "time / dlk time (> 1: dlk faster)\n{}",
             table.text());
  fmt::print("\nwall time {:.1f} s\n", wall);
  return 0;
}

RunFn setup_pool(CLI::App &command) {
  auto o = std::make_shared<PoolOptions>();
  o->context.add_to(command);
  command.add_option("--batches", o->batches, "batch sizes")
      ->delimiter(',')
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1024}))
      ->capture_default_str();
  command.add_option("--passes", o->passes, "fwd (training: argmax), inf (inference), bwd")
      ->delimiter(',')
      ->check(CLI::IsMember({"fwd", "inf", "bwd"}))
      ->capture_default_str();
  o->output.add_to(command, "dlk-perf/pool/1", "the points on the roofline of the backend's ceilings");
  command.add_option("--min-seconds", o->timing.min_seconds,
                     "time each point at least this long (both implementations together)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  return [o] { return run_pool(*o); };
}

const RegisterSubcommand kPool{
    {"pool", "dlk's f32 NCHW pooling (max with argmax, average; fwd, inf, bwd) against oneDNN, interleaved",
     setup_pool}};

}  // namespace
}  // namespace dlk::perf
