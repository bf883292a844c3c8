// `dlk-perf report`: the tour the README's first command runs, in under 3
// minutes on a 2-core machine: the machine, its ceilings (cached), one
// representative point per op (GEMM, conv, pool), dtype and available backend,
// each on the roofline and beside its peer timed in the same run; the codecs at
// one size; an all-reduce section from dlk-perf itself under mpirun; and a
// verdict per backend and all-reduce algorithm: what bounds it and how far from
// its roof it is. Each piece is the code of its own subcommand (GemmProblem,
// time_conv_point, time_pool_point, add_codec_points, `dlk-perf comm`).
// The JSON schema is documented in perf/README.md ("dlk-perf/report/2").
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "dlk/dlk.hpp"
#include "dlk/dlk_compress.hpp"
#include "perf/ceilings/ceilings_cache.hpp"
#include "perf/ceilings/ceilings_report.hpp"
#include "perf/workloads/compress_points.hpp"
#include "perf/workloads/conv_layers.hpp"
#include "perf/workloads/conv_point.hpp"
#include "perf/workloads/gemm_problem.hpp"
#include "perf/machine/machine_header.hpp"
#include "perf/peers/openblas_peer.hpp"
#include "perf/common/output_options.hpp"
#include "perf/workloads/pool_point.hpp"
#include "perf/common/progress.hpp"
#include "perf/peers/onednn_isa.hpp"
#include "perf/report/report_allreduce.hpp"
#include "perf/report/report_link_roofs.hpp"
#include "perf/report/report_plan.hpp"
#include "perf/common/report_table.hpp"
#include "perf/ceilings/roofline.hpp"
#include "perf/charts/roofline_chart.hpp"
#include "perf/commands/subcommand.hpp"
#include "perf/charts/svg_chart.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {
namespace {

const std::vector<std::string> kBackends{"cpu", "fpga_sim", "cuda"};

struct ReportOptions {
  std::vector<std::string> backends;  // empty: every backend, the unavailable ones skipped
  int threads = 0;                    // 0: DLK_NUM_THREADS, else the cores
  bool quick = false;
  bool refresh = false;
  OutputOptions output;
};

// What one tour measures: sizes and timing, smaller with --quick (CI).
struct Plan {
  std::int64_t gemm_size;
  ConvLayer conv;
  std::int64_t conv_batch;
  PoolLayer pool;
  std::int64_t pool_batch;
  size_t codec_bytes;
  TimingOptions timing;        // interleaved dlk / peer points
  TimingOptions codec_timing;  // single-threaded codecs: no pause needed
  AllreduceSizes allreduce;
};

const ConvLayer &layer_named(const std::vector<ConvLayer> &layers, const std::string &name) {
  for (const ConvLayer &l : layers)
    if (l.name == name) return l;
  throw std::logic_error("no convolution layer " + name);
}

Plan make_plan(bool quick) {
  Plan p;
  p.gemm_size = quick ? 128 : 512;
  // ResNet-50's res3 3x3 at batch 1: 0.23 GFLOP, the size a framework sends at
  // inference; LeNet-5's second layer at batch 64 when quick.
  const std::vector<ConvLayer> resnet = conv_layers("resnet50_3x3"), lenet = conv_layers("lenet5");
  p.conv = quick ? layer_named(lenet, "conv2") : resnet.at(1);
  p.conv_batch = quick ? 64 : 1;
  for (const PoolLayer &l : pool_layers())
    if (l.name == "resnet50_pool_3x3_s2") p.pool = l;
  p.pool_batch = 1;
  p.codec_bytes = quick ? size_t(1) << 20 : size_t(4) << 20;
  // As `dlk-perf gemm`: 20 ms bursts after a 20 ms pause, so the other
  // library's idle OpenMP threads sleep before each burst; shorter points.
  p.timing.warmup_calls = 1;
  p.timing.min_burst_seconds = quick ? 0.005 : 0.02;
  p.timing.pause_seconds = quick ? 0.005 : 0.02;
  p.timing.min_samples = quick ? 3 : 5;
  p.timing.min_seconds = quick ? 0.05 : 0.4;
  p.timing.max_seconds = quick ? 0.5 : 2;
  p.codec_timing = p.timing;
  p.codec_timing.pause_seconds = 0;
  p.allreduce.max_bytes = quick ? 256 << 10 : 4 << 20;
  p.allreduce.factor = quick ? 8 : 4;
  p.allreduce.min_seconds = quick ? 0.02 : 0.05;
  return p;
}

// Progress over the whole tour: each step a fraction of the steps planned.
class Steps {
 public:
  Steps(Progress &progress, int total) : progress_(progress), total_(total) {}
  void next(const std::string &what) {
    progress_.update(what, static_cast<double>(done_++) / total_);
  }

 private:
  Progress &progress_;
  int total_, done_ = 0;
};

// A simulated point: the accelerator's time does not depend on the host's, so
// one call of each candidate, with no warm-up, is enough.
TimingOptions single_call() {
  TimingOptions t;
  t.warmup_calls = 0;
  t.min_samples = 1;
  t.min_seconds = 0;
  t.max_samples = 1;
  t.max_seconds = 0;
  return t;
}

ReportTable points_table() {
  return ReportTable({{"backend", "backend", 1, 0},
                      {"op", "op", 1, 0},
                      {"dtype", "dtype", 1, 0},
                      {"shape", "shape", 1, 0},
                      {"flops", "GFLOP", 1e-9, 3},
                      {"bytes", "MB", 1e-6, 2},
                      {"intensity", "FLOP/B", 1, 1},
                      {"seconds", "ms", 1e3, 3},
                      {"simulated", "simulated", 1, 0, Show::json},
                      {"flops_per_second", "G/s", 1e-9, 1},
                      {"memory_level", "level", 1, 0},
                      {"roof_flops_per_second", "roof G/s", 1e-9, 1},
                      {"percent_of_roof", "%roof", 1, 1},
                      {"bound", "bound", 1, 0},
                      {"peer", "peer", 1, 0},
                      {"peer_flops_per_second", "peer G/s", 1e-9, 1},
                      {"ratio_to_peer", "x peer", 1, 2},
                      {"implementation", "dlk kernel", 1, 0, Show::json},
                      {"peer_implementation", "peer kernel", 1, 0, Show::json}});
}

ReportTable verdict_table() {
  return ReportTable({{"subject", "backend / all-reduce", 1, 0},
                      {"point", "point", 1, 0},
                      {"bound", "bound by", 1, 0},
                      {"percent_of_roof", "% of roof", 1, 1},
                      {"roof", "roof", 1, 0}});
}

// The memory level whose bandwidth bounds an op moving `bytes`: the smallest
// cache that holds them (levels the sweep found), else DRAM; "device" for a
// backend that reports one figure.
const MemoryCeiling *memory_roof(const MachineCeilings &m, double bytes, std::string &level) {
  const std::pair<const char *, size_t> levels[] = {
      {"L1", m.caches.l1d}, {"L2", m.caches.l2}, {"L3", m.caches.l3}};
  for (const auto &[name, size] : levels)
    if (bytes <= static_cast<double>(size))
      if (const MemoryCeiling *c = m.memory_ceiling(name)) return level = name, c;
  for (const char *name : {"DRAM", "device"})
    if (const MemoryCeiling *c = m.memory_ceiling(name)) return level = name, c;
  return nullptr;
}

struct PeerRate {
  std::string name, implementation;
  double rate = 0;  // FLOP/s of the same work
};

struct Verdict {
  std::string backend, point, bound, roof;
  double percent = 0;
};

class Tour {
 public:
  // Steps per backend: three GEMM dtypes, three conv dtypes, pool.
  static constexpr int kSteps = 7;

  Tour(const Plan &plan, const MachineCeilings &cpu, Steps &steps) : plan_(plan), cpu_(cpu), steps_(steps) {}

  // Measures the points of one backend's context.
  void measure_backend(dlk::Context &context, const OpenBlasPeer &openblas) {
    info_ = context.info();
    backend_ = info_.backend;
    simulated_ = backend_ == "fpga_sim";
    ceilings_ = backend_ == "cpu" ? cpu_ : reported_ceilings(info_);
    threads_ = info_.num_threads;
    const GemmDtype dtypes[] = {GemmDtype::f32, GemmDtype::bf16, GemmDtype::int8};
    for (GemmDtype d : dtypes) gemm_point(context, openblas, d);
    conv_points(context);
    pool_point(context);
  }

  ReportTable points = points_table();
  std::vector<std::string> skipped;  // one line per point not measured, saying why
  std::vector<RooflineChartPoint> chart_points;
  std::vector<Verdict> verdicts;  // of the f32 points, in the order measured

 private:
  TimingOptions timing() const { return simulated_ ? single_call() : plan_.timing; }

  void step(const std::string &what) { steps_.next(backend_ + " " + what); }

  // Places dlk's call (recorded by the context) and its peer on the roofline.
  void add(const std::string &op, const std::string &dtype, const std::string &shape,
           const dlk_op_record &record, double host_seconds, const PeerRate &host_peer) {
    const double seconds = simulated_ ? last_sim_seconds_ : host_seconds;
    // A simulated point's peer is the CPU peer timed on the host for the CPU
    // backend's point of the same shape (the same work).
    const std::string key = op + " " + dtype;
    PeerRate peer = host_peer;
    if (simulated_) {
      const auto it = cpu_peers_.find(key);
      peer = it == cpu_peers_.end() ? PeerRate{} : it->second;
    } else {
      cpu_peers_[key] = peer;
    }
    const Work work{record.flops, record.bytes};
    std::string level = "-";
    const ComputeCeiling *compute = ceilings_.roof_ceiling(dtype);
    const MemoryCeiling *memory = memory_roof(ceilings_, work.bytes, level);
    Cell roof, percent, bound;
    const double rate = work.flops / seconds;
    if (compute && memory) {
      const RooflinePoint p = place_on_roof(work, seconds, Roof{compute->value(), memory->bytes_per_second});
      roof = p.roof, percent = p.percent_of_roof, bound = std::string(bound_name(p.bound));
      if (dtype == "f32")
        verdicts.push_back({backend_, op + " " + dtype, bound_name(p.bound),
                                         p.bound == Bound::compute ? fmt::format("{} peak", dtype)
                                                                   : level + " bandwidth",
                                         p.percent_of_roof});
    }
    Cell peer_name, peer_rate, ratio, peer_impl;
    if (peer.rate > 0)
      peer_name = peer.name, peer_rate = peer.rate, ratio = rate / peer.rate,
      peer_impl = peer.implementation;
    points.add_row({backend_, op, dtype, shape, work.flops, work.bytes, work.intensity(), seconds,
                    std::string(simulated_ ? "yes" : "no"), rate, level, roof, percent, bound,
                    peer_name, peer_rate, ratio, std::string(record.implementation), peer_impl});
    const std::string label = fmt::format("{} {}", op, dtype);
    chart_points.push_back({label, "dlk " + backend_, false, simulated_, work.intensity(), rate});
    if (!simulated_ && peer.rate > 0)
      chart_points.push_back({label, peer.name, true, false, work.intensity(), peer.rate});
  }

  void note_sim(dlk::Context &context) {
    if (simulated_) last_sim_seconds_ = context.last_sim().seconds;
  }

  void gemm_point(dlk::Context &context, const OpenBlasPeer &openblas, GemmDtype dtype) {
    const std::string name = gemm_dtype_name(dtype);
    const dlk_dtype types[][3] = {{DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32},
                                  {DLK_DTYPE_BF16, DLK_DTYPE_BF16, DLK_DTYPE_F32},
                                  {DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_S32}};
    const dlk_dtype *t = types[static_cast<int>(dtype)];
    step("gemm " + name);
    if (!context.supports(DLK_OP_GEMM, t[0], t[1], t[2])) {
      skipped.push_back(fmt::format("{} gemm {}: the backend does not support it", backend_, name));
      return;
    }
    const std::int64_t s = plan_.gemm_size;
    GemmProblem problem(context, dtype, s, s, s);
    // The peer: OpenBLAS for f32 (what a framework links for sgemm), oneDNN's
    // matmul for bf16 and int8 (OpenBLAS has neither).
    const bool blas = dtype == GemmDtype::f32;
    std::vector<Candidate> candidates = {problem.dlk_candidate()};
    candidates.push_back(blas ? problem.openblas_candidate(openblas) : problem.onednn_candidate(false, threads_));
    const std::vector<Timing> t_ = time_interleaved(candidates, timing());
    const dlk_op_record record = context.last_op();
    note_sim(context);
    const OpenBlasPeer::Description d = openblas.describe();
    const PeerRate peer{blas ? "openblas" : "onednn",
                        blas ? fmt::format("cblas_sgemm:{}:{}t", d.core, d.threads) : problem.onednn_implementation(),
                        record.flops / t_[1].summary().median};
    add("gemm", name, fmt::format("{}x{}x{}", s, s, s), record, t_[0].summary().median, peer);
  }

  // f32 against oneDNN; bf16 and int8 (u8 x s8 -> s32) alone: the oneDNN
  // convolution peer here is f32.
  void conv_points(dlk::Context &context) {
    const dlk_dtype types[][3] = {{DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32},
                                  {DLK_DTYPE_BF16, DLK_DTYPE_BF16, DLK_DTYPE_BF16},
                                  {DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_S32}};
    for (const dlk_dtype *t : types) {
      const std::string name = t[0] == DLK_DTYPE_F32 ? "f32" : t[0] == DLK_DTYPE_BF16 ? "bf16" : "int8";
      step("conv " + name);
      if (!context.supports(DLK_OP_CONV2D_FORWARD, t[0], t[1], t[2])) {
        skipped.push_back(fmt::format("{} conv_fwd {}: the backend does not support it", backend_, name));
        continue;
      }
      dlk_conv2d_desc d = conv_desc(plan_.conv, plan_.conv_batch);
      d.src_type = t[0], d.weights_type = t[1], d.dst_type = t[2];
      const bool f32 = t[0] == DLK_DTYPE_F32;
      const ConvPointTiming p = f32 ? time_conv_point(context, d, ConvPass::forward, threads_, timing())
                                    : time_conv_forward_alone(context, d, timing());
      note_sim(context);
      add("conv_fwd", name,
          fmt::format("{} n{} {}>{} {}x{} {}x{}/{}", plan_.conv.name, d.n, d.c, d.k, d.h, d.w, d.kh,
                      d.kw, d.stride_h),
          p.record, p.dlk_seconds,
          f32 ? PeerRate{"onednn", p.onednn_plain_implementation, p.flops / p.onednn_plain_seconds} : PeerRate{});
    }
  }

  void pool_point(dlk::Context &context) {
    step("pool f32");
    if (!context.supports(DLK_OP_POOL2D_FORWARD, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32)) {
      skipped.push_back(fmt::format("{} pool_fwd f32: the backend does not support it", backend_));
      return;
    }
    const dlk_pool2d_desc d = pool_desc(plan_.pool, plan_.pool_batch);
    const PoolPointTiming p = time_pool_point(context, d, PoolPass::forward_training, threads_, timing());
    note_sim(context);
    add("pool_fwd", "f32",
        fmt::format("max n{} {} {}x{} {}x{}/{}", d.n, d.c, d.h, d.w, d.kh, d.kw, d.stride_h),
        p.record, p.dlk_seconds, {"onednn", p.onednn_implementation, p.record.flops / p.onednn_seconds});
  }

  const Plan &plan_;
  const MachineCeilings &cpu_;
  Steps &steps_;
  dlk_context_info info_{};
  std::string backend_;
  bool simulated_ = false;
  MachineCeilings ceilings_;
  int threads_ = 1;
  double last_sim_seconds_ = 0;
  std::map<std::string, PeerRate> cpu_peers_;  // "<op> <dtype>" -> the CPU point's peer
};

struct Codecs {
  std::string isa;
  size_t bytes = 0;
  ReportTable points = codec_points_table();
  std::map<std::string, CodecRates> rates;
};

Codecs measure_codecs(const Plan &plan, const CacheSizes &caches, Steps &steps) {
  Codecs c;
  c.isa = dlk::compress::isa();
  c.bytes = plan.codec_bytes;
  for (const std::string &name : codec_names()) {
    steps.next("codec " + name);
    c.rates[name] = add_codec_points(c.points, caches, name, codec_params(name, 0.01, "sampled"),
                                     plan.codec_bytes, plan.codec_timing);
  }
  return c;
}

std::string dlk_version_text() {
  const dlk_version v = dlk_get_version();
  return fmt::format("{}.{}.{}", v.major, v.minor, v.patch);
}

bool comm_subcommand_built() {
  for (const Subcommand &s : subcommands())
    if (std::string(s.name) == "comm") return true;
  return false;
}

int run_report(const ReportOptions &o) {
  const double start = now_seconds();
  const Plan plan = make_plan(o.quick);
  const bool all = o.backends.empty();
  const std::vector<std::string> backends = all ? kBackends : o.backends;

  // The CPU's ceilings first, before OpenBLAS's workers exist to take cycles.
  dlk_context_options cpu_options = dlk::context_options();
  cpu_options.backend = "cpu";
  cpu_options.num_threads = o.threads;
  const int threads = dlk::Context(cpu_options).info().num_threads;
  ObtainedCeilings got;
  {
    Progress ceilings_progress(o.output.progress());  // its own time-left estimate
    got = cached_or_measured_ceilings(
        threads, o.refresh, MachineCeilingOptions{},
        [&](const std::string &step, double f) { ceilings_progress.update("ceilings: " + step, f); });
  }
  const MachineCeilings &cpu = got.ceilings;

  const OpenBlasPeer openblas = OpenBlasPeer::load({false, 22});
  openblas.set_threads(threads);
  std::vector<std::string> warnings = cpu.above_theory();
  if (openblas.was_loaded_before()) warnings.push_back("OpenBLAS was loaded before dlk-perf could set its environment");

  Progress progress(o.output.progress());
  Steps steps(progress, static_cast<int>(backends.size()) * Tour::kSteps +
                            static_cast<int>(codec_names().size()) + 2);
  Tour tour(plan, cpu, steps);
  nlohmann::ordered_json backend_json = nlohmann::ordered_json::array();
  std::vector<std::string> backend_lines;
  std::string gpu = "not toured (--backends)";  // the cuda backend's device, or why it cannot run
  for (const std::string &name : backends) {
    dlk_context_options options = dlk::context_options();
    options.backend = name.c_str();
    options.num_threads = o.threads;
    std::optional<dlk::Context> context;
    try {
      context.emplace(options);
    } catch (const dlk::Error &e) {
      if (!all) throw;  // named explicitly: an error, not a skip
      backend_json.push_back({{"name", name}, {"measured", false}, {"reason", e.what()}});
      backend_lines.push_back(fmt::format("{}: skipped: {}", name, e.what()));
      if (name == "cuda") gpu = fmt::format("none usable ({})", e.what());
      for (int i = 0; i < Tour::kSteps; ++i) steps.next(name + " skipped");
      continue;
    }
    const dlk_context_info info = context->info();
    backend_json.push_back({{"name", name}, {"measured", true}, {"device", info.device}, {"isa", info.isa},
                            {"threads", info.num_threads}});
    backend_lines.push_back(fmt::format("{}: {} (isa {}, {} threads)", name, info.device, info.isa, info.num_threads));
    if (name == "cuda") gpu = info.device;
    tour.measure_backend(*context, openblas);
  }

  const Codecs codecs = measure_codecs(plan, cpu.caches, steps);
  steps.next("all-reduce under mpirun");
  const AllreduceRun allreduce = run_allreduce_under_mpirun(plan.allreduce, comm_subcommand_built());
  steps.next("plan of lenet5 on this machine's link");
  const ReportPlan plan_here = plan_on_machine_link(machine_link(allreduce), allreduce.ranks, threads, o.quick);
  progress.finish();

  ReportTable verdict = verdict_table();
  for (const Verdict &v : tour.verdicts) verdict.add_row({v.backend, v.point, v.bound, v.percent, v.roof});
  if (allreduce.ran) add_allreduce_roof_verdicts(verdict, allreduce, codecs.rates);

  MachineHeader header = machine_header(threads, cpu.clock_hz);
  const OpenBlasPeer::Description blas = openblas.describe();
  const std::string onednn_isa = onednn_effective_isa();
  const std::string caveat = onednn_isa_caveat(onednn_isa);
  header.add("peers", "peers",
             fmt::format("OpenBLAS core {} ({}), oneDNN {} on {}{}", blas.core, blas.config,
                         OneDnnMatmul::version(), onednn_isa,
                         caveat.empty() ? "" : " (" + caveat + ")"),
             {{"openblas_core", blas.core},
              {"openblas_config", blas.config},
              {"onednn", OneDnnMatmul::version()},
              {"onednn_isa", onednn_isa}});
  header.add("gpu", "GPU", gpu);
  if (!allreduce.mpi_version.empty())
    header.add("mpi", "MPI", fmt::format("{}, {} ranks", allreduce.mpi_version, allreduce.ranks),
               {{"version", allreduce.mpi_version}, {"ranks", allreduce.ranks}});
  const double wall = now_seconds() - start;

  if (!o.output.svg.empty())
    write_svg_file(o.output.svg,
                   render_svg(roofline_chart(cpu, tour.chart_points,
                                             fmt::format("dlk-perf report: {} on {} threads", cpu.cpu, threads))));

  if (o.output.json) {
    nlohmann::ordered_json doc;
    doc["schema"] = "dlk-perf/report/2";
    doc["dlk"] = {{"version", dlk_version_text()}, {"threads", threads}, {"quick", o.quick}};
    doc["machine"] = header.json();
    doc["ceilings"] = {{"from_cache", got.from_cache},
                       {"note", got.note},
                       {"measured_at", cpu.measured_at},
                       {"compute", compute_ceilings_table(cpu).json()},
                       {"memory", memory_ceilings_table(cpu).json()}};
    doc["backends"] = backend_json;
    doc["points"] = tour.points.json();
    doc["skipped"] = tour.skipped;
    doc["codecs"] = {{"isa", codecs.isa}, {"threads", 1}, {"points", codecs.points.json()}};
    nlohmann::ordered_json ar = {{"ran", allreduce.ran}};
    if (allreduce.ran) {
      ar["command"] = allreduce.command;
      ar["ranks"] = allreduce.ranks;
      ar["points"] = allreduce.comm.at("points");
      ar["fits"] = allreduce.comm.at("fits");
    } else {
      ar["reason"] = allreduce.reason;
    }
    doc["allreduce"] = ar;
    doc["verdict"] = verdict.json();
    doc["plan"] = plan_here.json();
    doc["warnings"] = warnings;
    doc["wall_seconds"] = wall;
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }

  fmt::print("dlk-perf report: dlk {}, {} thread{}{}\n\n{}\n", dlk_version_text(), threads,
             threads == 1 ? "" : "s", o.quick ? " (--quick: small sizes, short timing)" : "", header.text());
  fmt::print("ceilings: {}\n{}", got.note, compute_ceilings_table(cpu).text());
  fmt::print("{}\n{}", missing_dtypes_text(cpu), memory_ceilings_table(cpu).text());
  fmt::print("\nbackends\n");
  for (const std::string &line : backend_lines) fmt::print("  {}\n", line);
  fmt::print("\npoints: one per op, dtype and backend; G/s = 10^9 FLOP (OP for int8) per second, median per "
             "call over bursts interleaved with the peer's; roof = min(peak of the dtype (bf16: its f32 "
             "FMAs' where faster than vdpbf16ps), intensity x "
             "bandwidth of the smallest level holding the op's bytes); x peer = dlk rate / peer rate (> 1: "
             "dlk faster); fpga_sim: the simulated accelerator's time, its roof from its description, its "
             "peer the CPU peer of the same shape; conv bf16 and int8 have no peer (oneDNN's here is f32)\n{}",
             tour.points.text());
  for (const std::string &line : tour.skipped) fmt::print("skipped: {}\n", line);
  fmt::print("\ncodecs (libdlk_compress, isa {}, 1 thread, {} MiB of float input; roof = read bandwidth "
             "of a buffer as large as the working set, same rounds)\n{}",
             codecs.isa, codecs.bytes >> 20, codecs.points.text());
  fmt::print("\nall-reduce\n");
  if (allreduce.ran) {
    fmt::print("  {}\n", allreduce.command);
    ReportTable ar({{"bytes", "bytes", 1, 0},
                    {"algorithm", "algorithm", 1, 0},
                    {"seconds", "time us", 1e6, 1},
                    {"busbw", "busbw GB/s", 1e-9, 3},
                    {"wire", "wire B/rank", 1, 0},
                    {"speedup", "x MPI", 1, 2}});
    std::int64_t largest = 0;
    for (const auto &p : allreduce.comm.at("points")) largest = std::max(largest, p.at("bytes").get<std::int64_t>());
    for (const auto &p : allreduce.comm.at("points"))
      if (p.at("bytes").get<std::int64_t>() == largest)
        ar.add_row({largest, p.at("algorithm").get<std::string>(), p.at("seconds").get<double>(),
                    p.at("busbw").get<double>(), p.at("wire_bytes_sent").get<std::int64_t>(),
                    p.at("speedup_vs_mpi").is_number() ? Cell{p.at("speedup_vs_mpi").get<double>()} : Cell{}});
    fmt::print("largest size (every size and the alpha-beta fits: --json, or dlk-perf comm under mpirun)\n{}",
               ar.text());
  } else {
    fmt::print("  skipped: {}\n", allreduce.reason);
  }
  fmt::print("\nverdict: what bounds each backend's f32 points and each all-reduce (held against this machine's "
             "link and its codecs), and how close to that roof\n{}",
             verdict.text());
  if (plan_here.ran)
    fmt::print("\nplan (dlk-perf plan, docs/plan.md): {}, global batch {} on {} ranks over this machine's link "
               "({}, latency {:.2f} us), the layers measured on cpu\n{}winner: {}\n",
               plan_here.model, plan_here.batch, plan_here.ranks, bandwidth_text(plan_here.link.bandwidth),
               plan_here.link.latency * 1e6, plan_here.steps.text(), plan_here.winner);
  else
    fmt::print("\nplan: skipped: {}\n", plan_here.reason);
  for (const std::string &w : warnings) fmt::print("warning: {}\n", w);
  fmt::print("\nwall time {:.1f} s\n", wall);
  return 0;
}

RunFn setup_report(CLI::App &command) {
  auto o = std::make_shared<ReportOptions>();
  command.add_option("--backends", o->backends,
                     "backends to tour (default: every one, those that cannot run here skipped with the reason; "
                     "one named here that cannot run is an error)")
      ->delimiter(',')
      ->check(CLI::IsMember(kBackends));
  command.add_option("--threads", o->threads, "threads of dlk and of the peers (default: DLK_NUM_THREADS, else the cores)")
      ->check(CLI::NonNegativeNumber);
  command.add_flag("--quick", o->quick, "small sizes and short timing (seconds; for CI)");
  command.add_flag("--refresh", o->refresh, "measure the ceilings again even when they are cached");
  o->output.add_to(command, "dlk-perf/report/2", "the roofline of the report's points");
  return [o] { return run_report(*o); };
}

const RegisterSubcommand kReport{
    {"report", "the tour: machine, ceilings, a point per op, dtype and backend beside its peer, codecs, "
               "all-reduce under mpirun, and a verdict",
     setup_report}};

}  // namespace
}  // namespace dlk::perf
