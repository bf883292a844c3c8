// `dlk-perf roofline`: the ceilings of the context's device, then GEMM f32 at a
// few sizes on dlk and on OpenBLAS, interleaved, each placed on the roofline. On
// a device backend (cuda) the ceilings are measured on the device (memory by
// device copies, a peak per dtype by large GEMMs: perf/ceilings/device_ceilings.hpp)
// and the peer is cuBLASLt called directly on the same device buffers.
// The JSON schema is documented in perf/README.md ("dlk-perf/roofline/1").
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "dlk/dlk.hpp"
#include "perf/ceilings/ceilings.hpp"
#include "perf/ceilings/device_ceilings.hpp"
#include "perf/common/context_options.hpp"
#include "perf/workloads/gemm_problem.hpp"
#include "perf/machine/machine_header.hpp"
#include "perf/peers/cuda_peers.hpp"
#include "perf/peers/openblas_peer.hpp"
#include "perf/common/output_options.hpp"
#include "perf/common/progress.hpp"
#include "perf/common/report_table.hpp"
#include "perf/ceilings/roofline.hpp"
#include "perf/charts/roofline_svg.hpp"
#include "perf/commands/subcommand.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {
namespace {

struct RooflineOptions {
  ContextOptions context;
  std::vector<std::int64_t> sizes{256, 512, 1024, 2048};
  OutputOptions output;
  bool keep_openblas_env = false;
  std::int64_t dram_mib = 0;  // 0: from the L3 size
  TimingOptions timing = peer_interleaved_timing(0.5, 8);
  int openblas_thread_timeout = 22;  // 2^22 TSC cycles, about 2 ms
};

// A dlk result further from OpenBLAS's than this (relative to max |C|) is flagged.
constexpr double kDifferenceWarning = 1e-3;

ReportTable points_table() {
  return ReportTable({{"op", "op", 1, 0},
                      {"shape", "m x n x k", 1, 0, Show::text},
                      {"m", "m", 1, 0, Show::json},
                      {"n", "n", 1, 0, Show::json},
                      {"k", "k", 1, 0, Show::json},
                      {"impl", "impl", 1, 0},
                      {"flops", "GFLOP", 1e-9, 3},
                      {"bytes", "MB", 1e-6, 1},
                      {"intensity", "FLOP/B", 1, 1},
                      {"seconds", "ms", 1e3, 3},
                      {"seconds_min", "min ms", 1e3, 3, Show::json},
                      {"samples", "samples", 1, 0},
                      {"calls_per_sample", "calls", 1, 0, Show::json},
                      {"flops_per_second", "GFLOP/s", 1e-9, 1},
                      {"roof_flops_per_second", "roof", 1e-9, 1},
                      {"percent_of_roof", "%roof", 1, 1},
                      {"bound", "bound", 1, 0},
                      {"ratio_to_peer", "x peer", 1, 3},
                      {"max_relative_difference", "rel diff", 1, 0, Show::json},
                      {"kernel", "kernel", 1, 0}});
}

// Everything one run measured, printed as text or JSON.
struct RooflineReport {
  dlk_context_info info{};
  MachineHeader header;
  OpenBlasPeer::Description peer;
  RoofCeilings ceilings;
  std::optional<DeviceCeilings> device;  // a device backend's measured ceilings
  ReportTable points = points_table();
  std::vector<std::string> warnings;
  double wall_seconds = 0;
};

// Times one size on dlk and its peer (OpenBLAS, or on a device cuBLASLt called
// directly) and adds a row for each to report.points.
void add_gemm_points(RooflineReport &report, RooflineSvg &chart, dlk::Context &context,
                     const OpenBlasPeer *openblas, std::int64_t size, const TimingOptions &timing) {
  GemmProblem problem(context, GemmDtype::f32, size, size, size);
  std::unique_ptr<DevicePeer> device_peer;
  if (!openblas)
    device_peer = make_cublaslt_gemm_peer(DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, size, size, size,
                                          problem.a_device(), problem.b_device());
  const std::vector<Timing> t = time_interleaved(
      {problem.dlk_candidate(), openblas ? problem.openblas_candidate(*openblas)
                                         : Candidate{"cublaslt", [&device_peer] { device_peer->run(); }}},
      timing);
  if (device_peer) device_peer->download_output(problem.peer_c());
  const dlk_op_record record = context.last_op();
  const Work work{record.flops, record.bytes};
  const double difference = problem.max_relative_difference();
  const std::string peer_name = openblas ? "openblas" : "cublaslt";
  const Roof roof = report.ceilings.roof();
  const std::string shape = fmt::format("{}x{}x{}", size, size, size);

  auto add = [&](const char *impl, const Timing &timing_of, Cell ratio, Cell diff,
                 const std::string &kernel) {
    const Summary time = timing_of.summary();
    const RooflinePoint p = place_on_roof(work, time.median, roof);
    report.points.add_row({std::string("gemm_f32"), shape, size, size, size, std::string(impl),
                           work.flops, work.bytes, p.intensity, time.median, time.min,
                           static_cast<std::int64_t>(time.count),
                           static_cast<std::int64_t>(timing_of.calls_per_burst), p.rate, p.roof,
                           p.percent_of_roof, std::string(bound_name(p.bound)), ratio, diff,
                           kernel});
  };
  add("dlk", t[0], t[1].summary().median / t[0].summary().median, difference,
      record.implementation);
  if (std::string(report.info.backend) == "fpga_sim") {
    // The same call placed by the accelerator's simulated time, not the host's.
    const dlk_sim_record sim = context.last_sim();
    Timing simulated;
    simulated.seconds = {sim.seconds};
    simulated.calls_per_burst = 1;
    add("simulated", simulated, t[1].summary().median / sim.seconds, Cell(),
        std::string(record.implementation) + (sim.dram_bound ? " (DRAM bound)" : " (compute bound)"));
  }
  add(peer_name.c_str(), t[1], Cell(), Cell(),
      openblas ? fmt::format("cblas_sgemm:{}:{}t", report.peer.core, report.peer.threads)
               : device_peer->implementation());
  chart.add(fmt::format("gemm f32 {}", size), context, record, t[0].summary().median,
            {{peer_name, t[1].summary().median}});
  if (difference > kDifferenceWarning)
    report.warnings.push_back(
        fmt::format("at {} dlk's C differs from {}'s by {:.2e} of max |C|", shape, peer_name, difference));
}

RooflineReport measure(const RooflineOptions &o) {
  const double start = now_seconds();
  RooflineReport report;
  dlk::Context context(o.context.to_dlk());
  report.info = context.info();
  if (!context.supports(DLK_OP_GEMM, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32))
    throw std::runtime_error(std::string("backend ") + report.info.backend + " has no GEMM f32");
  report.header = context_machine_header(report.info);
  RooflineSvg chart(o.output.svg, report.info, o.output.progress());

  // Ceilings first: OpenBLAS's worker threads spin for a while after it loads,
  // and would take cycles from the FMA and bandwidth loops.
  std::optional<OpenBlasPeer> peer;
  if (is_device_backend(report.info)) {
    report.device = measure_device_ceilings(context, DeviceCeilingOptions{});
    report.ceilings = report.device->roof_ceilings();
  } else {
    CeilingOptions ceiling_options;
    ceiling_options.dram_bytes = static_cast<size_t>(o.dram_mib) << 20;
    report.ceilings = context_ceilings(report.info, ceiling_options);
    peer = OpenBlasPeer::load({o.keep_openblas_env, o.openblas_thread_timeout});
    peer->set_threads(report.info.num_threads);
    report.peer = peer->describe();
    if (peer->was_loaded_before())
      report.warnings.push_back("OpenBLAS was loaded before dlk-perf could set its environment");
  }

  Progress progress(o.output.progress());
  for (size_t i = 0; i < o.sizes.size(); ++i) {
    progress.update(fmt::format("gemm f32 {}", o.sizes[i]), static_cast<double>(i) / o.sizes.size());
    add_gemm_points(report, chart, context, peer ? &*peer : nullptr, o.sizes[i], o.timing);
  }
  progress.finish();
  chart.write(fmt::format("dlk-perf roofline: GEMM f32, backend {}, {} threads", report.info.backend,
                          report.info.num_threads));
  report.wall_seconds = now_seconds() - start;
  return report;
}

std::string dlk_version_text() {
  const dlk_version v = dlk_get_version();
  return fmt::format("{}.{}.{}", v.major, v.minor, v.patch);
}

void print_json(const RooflineReport &r) {
  const Roof roof = r.ceilings.roof();
  nlohmann::ordered_json doc;
  doc["schema"] = "dlk-perf/roofline/1";
  doc["dlk"] = {{"version", dlk_version_text()},
                {"backend", r.info.backend},
                {"device", r.info.device},
                {"isa", r.info.isa},
                {"threads", r.info.num_threads}};
  doc["machine"] = r.header.json();
  if (r.device) {
    doc["peer"] = {{"name", "cublaslt"}};
    doc["device_peaks"] = device_peaks_table(*r.device).json();
  } else {
    doc["peer"] = {{"name", "openblas"},
                 {"core", r.peer.core},
                 {"threads", r.peer.threads},
                 {"config", r.peer.config},
                 {"library", r.peer.library},
                 {"environment_removed", r.peer.removed_environment},
                 {"environment_set", r.peer.set_environment},
                 {"environment_kept", r.peer.kept_environment}};
  }
  doc["ceilings"] = ceilings_table(r.ceilings).json();
  doc["roof"] = {{"peak_flops_per_second", roof.peak_flops},
                 {"bandwidth_bytes_per_second", roof.bandwidth},
                 {"ridge_intensity", roof.ridge_intensity()}};
  doc["points"] = r.points.json();
  doc["warnings"] = r.warnings;
  doc["wall_seconds"] = r.wall_seconds;
  fmt::print("{}\n", doc.dump(2));
}

void print_text(const RooflineReport &r) {
  fmt::print("dlk-perf roofline: dlk {}, backend {}, isa {}, {} threads, device \"{}\"\n",
             dlk_version_text(), r.info.backend, r.info.isa, r.info.num_threads, r.info.device);
  fmt::print("\n{}\n", r.header.text());
  if (r.device)
    fmt::print("peer: cuBLASLt called directly on the same device buffers (heuristic's first algorithm, 32 MiB "
               "workspace, f32 compute)\n");
  else
    fmt::print("peer: OpenBLAS core {}, {} threads ({})\n", r.peer.core, r.peer.threads, r.peer.config);
  if (r.peer.kept_environment)
    fmt::print("      environment kept as it was (--keep-openblas-env)\n");
  if (!r.peer.removed_environment.empty())
    fmt::print("      removed before loading OpenBLAS, so it picks its own kernels: {}\n",
               fmt::join(r.peer.removed_environment, " "));
  if (!r.peer.set_environment.empty())
    fmt::print("      set before loading OpenBLAS, so its idle workers stop spinning sooner: {}\n",
               fmt::join(r.peer.set_environment, " "));
  fmt::print("\nceilings\n{}", ceilings_table(r.ceilings).text());
  fmt::print("ridge at {:.1f} FLOP/B\n", r.ceilings.roof().ridge_intensity());
  if (r.device)
    fmt::print("\npeak per dtype, measured by dlk_gemm (G/s = 10^9 FLOP or OP per second)\n{}",
               device_peaks_table(*r.device).text());
  fmt::print("\nGEMM f32 (row-major, no transposes, alpha 1, beta 0): median per call over interleaved"
             " bursts; x peer = dlk GFLOP/s / the peer's GFLOP/s\n{}",
             r.points.text());
  if (std::string(r.info.backend) == "fpga_sim")
    fmt::print("simulated: the dlk call placed by the time the fpga_sim timing model gives for the "
               "described accelerator (ceilings from its description); dlk: the host's time to "
               "simulate it\n");
  for (const std::string &w : r.warnings) fmt::print("warning: {}\n", w);
  fmt::print("\nwall time {:.1f} s\n", r.wall_seconds);
}

int run_roofline(const RooflineOptions &o) {
  const RooflineReport report = measure(o);
  if (o.output.json)
    print_json(report);
  else
    print_text(report);
  return 0;
}

RunFn setup_roofline(CLI::App &command) {
  auto o = std::make_shared<RooflineOptions>();
  o->context.add_to(command);
  command.add_option("--sizes", o->sizes, "GEMM sizes m = n = k")
      ->delimiter(',')
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{65536}))
      ->capture_default_str();
  o->output.add_to(command, "dlk-perf/roofline/1",
                   "the points on the roofline of the backend's ceilings (dlk-perf ceilings, cached)");
  command.add_flag("--keep-openblas-env", o->keep_openblas_env,
                   "load OpenBLAS with the environment as it is (default: remove "
                   "OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE so it picks its own kernels, and set "
                   "OPENBLAS_THREAD_TIMEOUT=22 when unset)");
  command.add_option("--dram-mib", o->dram_mib,
                     "working set of the DRAM bandwidth measurement in MiB "
                     "(default: 8x the L3, 256-1024)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 16));
  command.add_option("--min-seconds", o->timing.min_seconds,
                     "time each size at least this long (all implementations together)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command.add_option("--max-seconds", o->timing.max_seconds,
                     "start no new round of a size after this long")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  return [o] { return run_roofline(*o); };
}

const RegisterSubcommand kRoofline{
    {"roofline", "FP32 peak and DRAM bandwidth, then GEMM f32 on dlk and OpenBLAS on the roofline",
     setup_roofline}};

}  // namespace
}  // namespace dlk::perf
