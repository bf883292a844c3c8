// `dlk-perf gemm`: dlk's GEMM against OpenBLAS (f32) and oneDNN's matmul (f32,
// bf16, int8; B plain and B in oneDNN's own layout) on the same data and thread
// count, interleaved, over named shape sets, at one or more thread counts; each
// point with the ratio to every peer and the % of the peak measured in the same
// run. On a device backend (cuda) the peer is cuBLASLt called directly on the
// same device buffers (perf/peers/cuda_peers.hpp) and the CPU libraries are left
// out. The JSON schema is documented in perf/README.md ("dlk-perf/gemm/1").
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "dlk/dlk.hpp"
#include "perf/common/context_options.hpp"
#include "perf/ceilings/dtype_peaks.hpp"
#include "perf/workloads/gemm_problem.hpp"
#include "perf/workloads/gemm_shapes.hpp"
#include "perf/machine/machine_header.hpp"
#include "perf/peers/cuda_peers.hpp"
#include "perf/peers/onednn_peer.hpp"
#include "perf/peers/openblas_peer.hpp"
#include "perf/common/output_options.hpp"
#include "perf/common/progress.hpp"
#include "perf/common/report_table.hpp"
#include "perf/charts/roofline_svg.hpp"
#include "perf/commands/subcommand.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {
namespace {

struct GemmOptions {
  ContextOptions context;
  std::vector<int> thread_counts;  // empty: 1 and the context's default
  std::vector<std::string> dtypes{"f32", "bf16", "int8"};
  std::vector<std::string> shapes{"square", "transformer", "resnet50", "skinny", "primes"};
  double max_gflop = 0;  // 0: no limit
  OutputOptions output;
  bool keep_openblas_env = false;
  TimingOptions timing = peer_interleaved_timing(0.3, 4);
  int openblas_thread_timeout = 22;
};

ReportTable points_table() {
  return ReportTable({{"dtype", "dtype", 1, 0},
                      {"set", "set", 1, 0, Show::json},
                      {"name", "name", 1, 0},
                      {"shape", "m x n x k", 1, 0, Show::text},
                      {"m", "m", 1, 0, Show::json},
                      {"n", "n", 1, 0, Show::json},
                      {"k", "k", 1, 0, Show::json},
                      {"threads", "thr", 1, 0},
                      {"dlk_ops_per_second", "dlk G/s", 1e-9, 1},
                      {"openblas_ops_per_second", "openblas", 1e-9, 1},
                      {"onednn_ops_per_second", "onednn", 1e-9, 1},
                      {"onednn_packed_ops_per_second", "onednn pk", 1e-9, 1},
                      {"ratio_to_openblas", "x openblas", 1, 3},
                      {"ratio_to_onednn", "x onednn", 1, 3},
                      {"ratio_to_onednn_packed", "x onednn pk", 1, 3},
                      {"cublaslt_ops_per_second", "cublaslt", 1e-9, 1},
                      {"ratio_to_cublaslt", "x cublaslt", 1, 3},
                      {"percent_of_peak", "%peak", 1, 1},
                      {"peak_ops_per_second", "peak", 1e-9, 1, Show::json},
                      {"dlk_seconds", "dlk ms", 1e3, 3, Show::json},
                      {"max_relative_difference", "rel diff", 1, 0, Show::json},
                      {"dlk_kernel", "dlk kernel", 1, 0},
                      {"onednn_implementation", "onednn impl", 1, 0, Show::json},
                      {"cublaslt_implementation", "cublaslt impl", 1, 0, Show::json}});
}


struct GemmReport {
  dlk_context_info info{};
  MachineHeader header;  // at the largest thread count
  OpenBlasPeer::Description openblas;
  std::string onednn_version;
  std::vector<PeakRow> peaks;
  ReportTable points = points_table();
  std::vector<std::string> warnings;
  double wall_seconds = 0;
};

// A dlk result further from the peer's than this (relative to max |C|) is flagged.
double difference_limit(GemmDtype d) { return d == GemmDtype::int8 ? 0 : d == GemmDtype::bf16 ? 1e-2 : 1e-3; }

double rate(double ops, const Timing &t) { return ops / t.summary().median; }

// dlk against cuBLASLt called directly, on the same device buffers, interleaved.
void add_device_point(GemmReport &report, dlk::Context &context, const PeakRow &peak, GemmDtype dtype,
                      const GemmShape &shape, const TimingOptions &timing, RooflineSvg *chart) {
  GemmProblem problem(context, dtype, shape.m, shape.n, shape.k);
  std::unique_ptr<DevicePeer> peer = make_cublaslt_gemm_peer(problem.a_type(), problem.b_type(), problem.c_type(),
                                                             shape.m, shape.n, shape.k, problem.a_device(),
                                                             problem.b_device());
  const std::vector<Timing> t =
      time_interleaved({problem.dlk_candidate(), {"cublaslt", [&peer] { peer->run(); }}}, timing);
  const dlk_op_record record = context.last_op();
  const double ops = 2.0 * shape.m * shape.n * shape.k;
  const double dlk = rate(ops, t[0]), direct = rate(ops, t[1]);
  const double peak_rate = dtype == GemmDtype::f32 ? peak.fp32 : dtype == GemmDtype::bf16 ? peak.bf16 : peak.int8;
  // The int8 peer multiplies s8 operands of its own: nothing to compare.
  const bool compared = peer->download_output(problem.peer_c());
  const double difference_value = compared ? problem.max_relative_difference() : 0;
  Cell difference;
  if (compared) difference = difference_value;
  if (chart)
    chart->add(fmt::format("{} {}", gemm_dtype_name(dtype), shape.name), context, record, t[0].summary().median,
               {{"cublaslt", t[1].summary().median}});
  report.points.add_row({std::string(gemm_dtype_name(dtype)), shape.set, shape.name,
                         fmt::format("{}x{}x{}", shape.m, shape.n, shape.k), shape.m, shape.n, shape.k,
                         std::int64_t{context.info().num_threads}, dlk, Cell(), Cell(), Cell(), Cell(), Cell(), Cell(),
                         direct, dlk / direct, 100.0 * dlk / peak_rate, peak_rate, t[0].summary().median, difference,
                         std::string(record.implementation), Cell(), peer->implementation()});
  if (difference_value > difference_limit(dtype))
    report.warnings.push_back(fmt::format("{} {}x{}x{}: dlk's C differs from cuBLASLt's by {:.2e} of max |C|",
                                          gemm_dtype_name(dtype), shape.m, shape.n, shape.k, difference_value));
}

void add_point(GemmReport &report, dlk::Context &context, const OpenBlasPeer &openblas,
               const PeakRow &peak, GemmDtype dtype, const GemmShape &shape, int threads,
               const TimingOptions &timing, RooflineSvg *chart) {
  GemmProblem problem(context, dtype, shape.m, shape.n, shape.k);
  std::vector<Candidate> candidates = {problem.dlk_candidate()};
  if (dtype == GemmDtype::f32) candidates.push_back(problem.openblas_candidate(openblas));
  candidates.push_back(problem.onednn_candidate(true, threads));
  const std::string onednn_impl = problem.onednn_implementation();
  candidates.push_back(problem.onednn_candidate(false, threads));  // runs last: the reference C
  const std::vector<Timing> t = time_interleaved(candidates, timing);
  const dlk_op_record record = context.last_op();
  const double ops = 2.0 * shape.m * shape.n * shape.k;
  const double dlk = rate(ops, t[0]);
  const Timing &onednn = t.back(), &onednn_packed = t[t.size() - 2];
  Cell openblas_rate, openblas_ratio;
  if (dtype == GemmDtype::f32) {
    openblas_rate = rate(ops, t[1]);
    openblas_ratio = dlk / rate(ops, t[1]);
  }
  const double peak_rate = dtype == GemmDtype::f32 ? peak.fp32 : dtype == GemmDtype::bf16 ? peak.bf16 : peak.int8;
  const double difference = problem.max_relative_difference();
  if (chart)
    chart->add(fmt::format("{} {}", gemm_dtype_name(dtype), shape.name), context, record, t[0].summary().median,
               {{"openblas", dtype == GemmDtype::f32 ? t[1].summary().median : 0},
                {"onednn", onednn.summary().median},
                {"onednn, B packed", onednn_packed.summary().median}});
  report.points.add_row(
      {std::string(gemm_dtype_name(dtype)), shape.set, shape.name,
       fmt::format("{}x{}x{}", shape.m, shape.n, shape.k), shape.m, shape.n, shape.k,
       std::int64_t{threads}, dlk, openblas_rate, rate(ops, onednn), rate(ops, onednn_packed),
       openblas_ratio, dlk / rate(ops, onednn), dlk / rate(ops, onednn_packed), Cell(), Cell(),
       100.0 * dlk / peak_rate, peak_rate, t[0].summary().median, difference,
       std::string(record.implementation), onednn_impl, Cell()});
  if (difference > difference_limit(dtype))
    report.warnings.push_back(fmt::format("{} {}x{}x{}, {} threads: dlk's C differs from oneDNN's by {:.2e} of max |C|",
                                          gemm_dtype_name(dtype), shape.m, shape.n, shape.k, threads, difference));
}

std::vector<int> thread_counts(const GemmOptions &o) {
  if (o.context.threads > 0) return {o.context.threads};
  if (!o.thread_counts.empty()) return o.thread_counts;
  dlk::Context probe(o.context.to_dlk());
  const int cores = probe.info().num_threads;
  return cores > 1 ? std::vector<int>{1, cores} : std::vector<int>{1};
}

GemmReport measure(const GemmOptions &o) {
  const double start = now_seconds();
  GemmReport report;
  std::vector<GemmShape> shapes;
  for (const std::string &set : o.shapes) {
    for (const GemmShape &s : gemm_shape_set(set))
      if (o.max_gflop == 0 || 2e-9 * s.m * s.n * s.k <= o.max_gflop) shapes.push_back(s);
  }
  std::vector<GemmDtype> dtypes;
  for (const std::string &d : o.dtypes) dtypes.push_back(gemm_dtype_from_name(d));

  // The chart: the points of the last (largest) thread count, under its ceilings.
  std::vector<int> counts = thread_counts(o);
  ContextOptions chart_context = o.context;
  chart_context.threads = counts.back();
  const dlk_context_info largest = dlk::Context(chart_context.to_dlk()).info();
  report.header = context_machine_header(largest);
  RooflineSvg chart(o.output.svg, largest, o.output.progress());
  // A device's GEMM does not depend on the host's thread count.
  const bool device = is_device_backend(largest);
  if (device) counts = {counts.back()};

  // OpenBLAS is not a device backend's peer: not loaded then.
  std::optional<OpenBlasPeer> openblas;
  if (!device) openblas = OpenBlasPeer::load({o.keep_openblas_env, o.openblas_thread_timeout});
  if (openblas && openblas->was_loaded_before())
    report.warnings.push_back("OpenBLAS was loaded before dlk-perf could set its environment");
  report.onednn_version = OneDnnMatmul::version();
  Progress progress(o.output.progress());
  const double total = static_cast<double>(counts.size() * dtypes.size() * shapes.size());
  int done = 0;
  for (int threads : counts) {
    ContextOptions context_options = o.context;
    context_options.threads = threads;
    dlk::Context context(context_options.to_dlk());
    report.info = context.info();
    if (openblas) {
      openblas->set_threads(threads);
      report.openblas = openblas->describe();
    }
    report.peaks.push_back(device ? theoretical_dtype_peaks(report.info) : measure_dtype_peaks(report.info, threads));
    for (GemmDtype dtype : dtypes)
      for (const GemmShape &shape : shapes) {
        progress.update(fmt::format("gemm {} {}x{}x{}, {} threads", gemm_dtype_name(dtype), shape.m, shape.n,
                                    shape.k, threads),
                        done++ / total);
        if (device)
          add_device_point(report, context, report.peaks.back(), dtype, shape, o.timing, &chart);
        else
          add_point(report, context, *openblas, report.peaks.back(), dtype, shape, threads, o.timing,
                    threads == counts.back() ? &chart : nullptr);
      }
  }
  progress.finish();
  chart.write(fmt::format("dlk-perf gemm: backend {}, {} threads", report.info.backend, counts.back()));
  report.wall_seconds = now_seconds() - start;
  return report;
}

std::string dlk_version_text() {
  const dlk_version v = dlk_get_version();
  return fmt::format("{}.{}.{}", v.major, v.minor, v.patch);
}

void print_json(const GemmReport &r) {
  nlohmann::ordered_json doc;
  doc["schema"] = "dlk-perf/gemm/1";
  doc["dlk"] = {{"version", dlk_version_text()},
                {"backend", r.info.backend},
                {"device", r.info.device},
                {"isa", r.info.isa}};
  doc["machine"] = r.header.json();
  if (is_device_backend(r.info))
    doc["peers"] = nlohmann::ordered_json::array({{{"name", "cublaslt"}}});
  else
    doc["peers"] = {{{"name", "openblas"},
                   {"core", r.openblas.core},
                   {"config", r.openblas.config},
                   {"library", r.openblas.library},
                   {"environment_removed", r.openblas.removed_environment},
                   {"environment_set", r.openblas.set_environment},
                   {"environment_kept", r.openblas.kept_environment}},
                  {{"name", "onednn"}, {"version", r.onednn_version}}};
  nlohmann::ordered_json peaks = nlohmann::ordered_json::array();
  for (const PeakRow &p : r.peaks)
    peaks.push_back({{"threads", p.threads},
                     {"fp32_flops_per_second", p.fp32},
                     {"bf16_flops_per_second", p.bf16},
                     {"int8_ops_per_second", p.int8},
                     {"method", p.method},
                     {"bf16_method", p.bf16_method},
                     {"int8_method", p.int8_method}});
  doc["peaks"] = peaks;
  doc["points"] = r.points.json();
  doc["warnings"] = r.warnings;
  doc["wall_seconds"] = r.wall_seconds;
  fmt::print("{}\n", doc.dump(2));
}

void print_text(const GemmReport &r) {
  fmt::print("dlk-perf gemm: dlk {}, backend {}, isa {}, device \"{}\"\n", dlk_version_text(),
             r.info.backend, r.info.isa, r.info.device);
  fmt::print("\n{}\n", r.header.text());
  if (is_device_backend(r.info))
    fmt::print("peer: cuBLASLt called directly on the same device buffers (heuristic's first algorithm, 32 MiB "
               "workspace, f32 compute; int8: s8 x s8 -> s32 in its TN layout on buffers of its own)\n");
  else
    fmt::print("peers: OpenBLAS core {} ({}); oneDNN {} matmul\n", r.openblas.core, r.openblas.config,
               r.onednn_version);
  if (!r.openblas.removed_environment.empty())
    fmt::print("       removed before loading OpenBLAS, so it picks its own kernels: {}\n",
               fmt::join(r.openblas.removed_environment, " "));
  for (const PeakRow &p : r.peaks)
    fmt::print("peak at {} threads: FP32 {:.1f} GFLOP/s ({}); BF16 {:.1f} GFLOP/s ({}); INT8 "
               "{:.1f} GOP/s ({})\n",
               p.threads, p.fp32 * 1e-9, p.method, p.bf16 * 1e-9, p.bf16_method, p.int8 * 1e-9,
               p.int8_method);
  fmt::print("\nC = A * B, row-major, no transposes; f32: f32 x f32 -> f32, bf16: bf16 x bf16 -> f32, "
             "int8: u8 x s8 -> s32. G/s = 10^9 FLOP (OP for int8) per second, median per call over "
             "interleaved bursts; x peer = dlk / peer; onednn pk = B in oneDNN's own layout, "
             "reordered untimed\n{}",
             r.points.text());
  for (const std::string &w : r.warnings) fmt::print("warning: {}\n", w);
  fmt::print("\nwall time {:.1f} s\n", r.wall_seconds);
}

int run_gemm(const GemmOptions &o) {
  const GemmReport report = measure(o);
  if (o.output.json)
    print_json(report);
  else
    print_text(report);
  return 0;
}

RunFn setup_gemm(CLI::App &command) {
  auto o = std::make_shared<GemmOptions>();
  o->context.add_to(command);
  command.add_option("--thread-counts", o->thread_counts,
                     "thread counts to measure, one after the other (default: 1 and the "
                     "context's default; --threads names one)")
      ->delimiter(',')
      ->check(CLI::Range(1, 4096));
  command.add_option("--dtypes", o->dtypes, "f32, bf16, int8")
      ->delimiter(',')
      ->check(CLI::IsMember({"f32", "bf16", "int8"}))
      ->capture_default_str();
  command.add_option("--shapes", o->shapes,
                     "shape sets: square (64-4096), resnet50 (im2col GEMMs, batch 1), "
                     "transformer (2048 tokens, 768/3072), skinny (m = 1, n = 1, tall, small k), "
                     "small (below the unpacked path's limits), primes, all")
      ->delimiter(',')
      ->check(CLI::IsMember({"square", "resnet50", "transformer", "skinny", "small", "primes", "all"}))
      ->capture_default_str();
  command.add_option("--max-gflop", o->max_gflop,
                     "leave out the shapes of more than this many GFLOP (2 m n k; default: no limit)")
      ->check(CLI::PositiveNumber);
  o->output.add_to(command, "dlk-perf/gemm/1",
                   "the points of the largest thread count on the roofline of its ceilings");
  command.add_flag("--keep-openblas-env", o->keep_openblas_env,
                   "load OpenBLAS with the environment as it is (default: as dlk-perf roofline)");
  command.add_option("--min-seconds", o->timing.min_seconds,
                     "time each point at least this long (all implementations together)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command.add_option("--max-seconds", o->timing.max_seconds,
                     "start no new round of a point after this long")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command.add_option("--min-samples", o->timing.min_samples, "samples of each implementation")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  return [o] { return run_gemm(*o); };
}

const RegisterSubcommand kGemm{
    {"gemm", "dlk's GEMM (f32, bf16, int8) against OpenBLAS and oneDNN, interleaved, with % of peak",
     setup_gemm}};

}  // namespace
}  // namespace dlk::perf
