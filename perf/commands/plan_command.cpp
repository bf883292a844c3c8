// dlk-perf plan: the predicted step time of data-parallel training for every
// all-reduce algorithm, from the model's compute (measured here, simulated, or
// from given ceilings) and the link's alpha-beta (given). perf/plan/ holds the
// model; docs/plan.md explains it and its limits.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "dlk/dlk.hpp"
#include "perf/ceilings/machine_ceilings.hpp"
#include "perf/charts/svg_chart.hpp"
#include "perf/commands/subcommand.hpp"
#include "perf/common/context_options.hpp"
#include "perf/common/output_options.hpp"
#include "perf/common/progress.hpp"
#include "perf/common/report_table.hpp"
#include "perf/common/timing.hpp"
#include "perf/machine/machine_header.hpp"
#include "perf/plan/algorithm_overheads.hpp"
#include "perf/plan/codec_costs.hpp"
#include "perf/plan/link_measurements.hpp"
#include "perf/plan/plan_charts.hpp"
#include "perf/plan/step_plan.hpp"
#include "perf/plan/train_timeline.hpp"

namespace dlk::perf {
namespace {

struct PlanOptions {
  std::string model = "lenet5";
  std::int64_t batch = 64;
  int ranks = 2;
  ContextOptions context;
  std::string compute;  // empty: measured on the context
  std::string link = "10gbit";
  std::vector<std::string> algorithms = plan_algorithms();
  double bucket_mb = 0;  // 0: dlk-train's default (train_default_bucket_bytes)
  double topk_fraction = 0.01;
  double contention = 0;  // 0: from threads and cores
  int ranks_here = 1;     // ranks sharing this machine's cores (scripts/netbed.sh: all of them)
  double sharing = 0;     // 0: max(1, ranks_here x threads / cores)
  std::string layer_times;  // dlk-train --json of a one-rank run at the local batch: its timeline
  std::string allreduce;  // dlk-perf comm --json measured on the link: its per-algorithm terms
  double bucket_overhead = 0;  // seconds a bucket's all-reduce takes in training beyond alone
  double own_bucket_overhead = -1;  // the same for dlk's own algorithms; < 0: bucket_overhead
  std::string algorithm_overhead;    // "onebit=0.0012,...": single algorithms' own calibrations
  std::int64_t min_compress_bytes = -1;  // < 0: dlk-train's default per algorithm
  std::vector<int> scaling{1, 2, 4, 8, 16, 32};
  bool refresh = false;
  double min_seconds = 0.05;
  std::string roofline_svg;
  OutputOptions output;
};

PlanModel load_model(const std::string &name) {
  const std::vector<std::string> &names = builtin_model_names();
  if (std::find(names.begin(), names.end(), name) != names.end()) return builtin_model(name);
  std::error_code error;
  if (std::filesystem::is_regular_file(name, error)) {
    std::ifstream in(name);
    std::stringstream text;
    text << in.rdbuf();
    return parse_model_json(text.str());
  }
  return builtin_model(name);  // throws, naming the valid names
}

std::string read_text(const std::string &path, const char *option) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(std::string(option) + " " + path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int run_plan(const PlanOptions &o) {
  const double start = now_seconds();
  if (o.ranks < 1) throw std::invalid_argument(fmt::format("--ranks is {}: it must be at least 1", o.ranks));
  if (o.batch < 1) throw std::invalid_argument(fmt::format("--batch is {}: it must be at least 1", o.batch));
  if (o.batch % o.ranks != 0)
    throw std::invalid_argument(fmt::format("--batch {} does not split evenly over --ranks {}", o.batch, o.ranks));
  const PlanModel model = load_model(o.model);
  const std::map<std::string, double> algorithm_overhead = parse_algorithm_overheads(o.algorithm_overhead);
  const LinkSpec link = parse_link(o.link);
  if (!(o.bucket_mb >= 0)) throw std::invalid_argument(fmt::format("--bucket-mb is {}: it must be >= 0", o.bucket_mb));
  const std::uint64_t bucket_bytes = o.bucket_mb > 0 ? static_cast<std::uint64_t>(o.bucket_mb * (1 << 20))
                                                     : train_default_bucket_bytes(model);
  if (bucket_bytes < 4) throw std::invalid_argument("--bucket-mb must hold at least one float");
  const double bucket_mb = static_cast<double>(bucket_bytes) / (1 << 20);

  std::optional<ComputeRoof> roof;
  if (!o.compute.empty()) roof = parse_compute_roof(o.compute);
  std::unique_ptr<dlk::Context> context;
  MachineHeader header;
  int threads = 1;
  std::string backend = "roofline";
  if (!roof) {
    context = std::make_unique<dlk::Context>(o.context.to_dlk());
    const dlk_context_info info = context->info();
    backend = info.backend;
    if (backend != "cpu" && backend != "fpga_sim")
      throw std::invalid_argument("--backend " + backend +
                                  ": its layers cannot be run here to be measured; give its ceilings "
                                  "with --compute peak=<FLOP/s>,bandwidth=<B/s>");
    threads = info.num_threads;
    header = context_machine_header(info);
  } else {
    header = machine_header(1, 0);
    header.add("compute", "compute", fmt::format("roofline of peak {:.4g} GFLOP/s, bandwidth {:.4g} GB/s (given)",
                                                 roof->peak * 1e-9, roof->bandwidth * 1e-9));
  }
  const int cores = allowed_cpus();
  if (o.ranks_here < 1 || o.ranks_here > o.ranks)
    throw std::invalid_argument(fmt::format("--ranks-here is {}: it must be in [1, --ranks]", o.ranks_here));
  // Ranks that share the cores each compute more slowly, and their background
  // threads contend with every rank's compute threads.
  const double sharing = o.sharing > 0 ? o.sharing
                         : roof      ? 1.0
                                     : std::max(1.0, static_cast<double>(o.ranks_here * threads) / cores);
  const double contention =
      o.contention > 0 ? o.contention
                       : (roof ? 1.0
                               : std::max(1.0, static_cast<double>(o.ranks_here * (threads + 1)) / cores / sharing));
  const std::string cache_key = ceilings_cache_key(threads) + " " + backend;
  CodecCosts codec_costs(o.topk_fraction, std::min(o.min_seconds, 0.05));
  // Codecs measured inside the all-reduce (--allreduce, every rank here at once) already ran
  // time-shared and are not scaled.
  const double codec_sharing = roof ? 1.0 : codec_time_sharing(o.ranks_here, cores);
  const CodecLookup codecs = time_shared(
      [&](const std::string &a, std::uint64_t count) { return codec_costs.at(a, count); }, codec_sharing);
  std::optional<LinkMeasurements> measured;
  if (!o.allreduce.empty()) {
    measured = parse_link_measurements(read_text(o.allreduce, "--allreduce"), link, codecs, chunk_bytes_from_environment(), o.topk_fraction);
  }
  Progress progress(o.output.progress());

  const auto compute_at = [&](std::int64_t local_batch) {
    progress.update(fmt::format("{} layers at batch {}", model.name, local_batch), 0);
    ComputeTimes t = roof ? roofline_times(model, local_batch, *roof)
                     : !o.layer_times.empty() && local_batch == o.batch / o.ranks
                         ? timeline_times(model, read_text(o.layer_times, "--layer-times"))
                         : measured_times(model, local_batch, *context, cache_key, o.refresh, o.min_seconds);
    for (double &f : t.forward_seconds) f *= sharing;
    for (double &b : t.backward_seconds) b *= sharing;
    t.update_seconds *= sharing;
    return t;
  };
  const auto setup_for = [&](const ComputeTimes &compute, int ranks, const LinkSpec &l) {
    StepSetup s;
    s.model = &model;
    s.compute = &compute;
    s.ranks = ranks;
    s.link = l;
    s.bucket_bytes = bucket_bytes;
    s.contention = contention;
    s.chunk_bytes = chunk_bytes_from_environment();
    s.topk_fraction = o.topk_fraction;
    s.measured = measured ? &*measured : nullptr;
    s.ranks_here = o.ranks_here;
    s.bucket_overhead = o.bucket_overhead;
    if (o.own_bucket_overhead >= 0) s.own_bucket_overhead = o.own_bucket_overhead;
    s.algorithm_overhead = algorithm_overhead;
    if (o.min_compress_bytes >= 0) s.min_compress_bytes = static_cast<std::uint64_t>(o.min_compress_bytes);
    s.threads = threads;
    s.cores = cores;
    return s;
  };

  const ComputeTimes compute = compute_at(o.batch / o.ranks);
  const StepSetup setup = setup_for(compute, o.ranks, link);
  std::vector<AlgorithmPlan> plans;
  for (const std::string &a : o.algorithms) {
    progress.update("planning " + a, 0.5);
    plans.push_back(plan_algorithm(setup, a, codecs));
  }
  const AlgorithmPlan *native = nullptr, *winner = &plans.front();
  for (const AlgorithmPlan &p : plans) {
    if (p.algorithm == "native") native = &p;
    if (p.step.step_seconds < winner->step.step_seconds) winner = &p;
  }
  const double local_batch = static_cast<double>(o.batch / o.ranks);
  const double step_flop = local_batch * (model.forward_flop() + model.backward_flop());

  ReportTable steps({{"algorithm", "algorithm", 1, 0},
                     {"step_seconds", "step ms", 1e3, 3},
                     {"compute_seconds", "compute ms", 1e3, 3},
                     {"contention_seconds", "contention ms", 1e3, 3},
                     {"exposed_network_seconds", "exposed net ms", 1e3, 3},
                     {"exposed_codec_seconds", "exposed codec ms", 1e3, 3},
                     {"network_seconds", "network ms", 1e3, 3},
                     {"codec_seconds", "codec ms", 1e3, 3},
                     {"wire_bytes", "wire MB", 1e-6, 3},
                     {"samples_per_second", "samples/s", 1, 0},
                     {"speedup_vs_native", "x native", 1, 2},
                     {"bucket_algorithms", "buckets run", 1, 0, Show::json},
                     {"bucket_bytes", "bucket bytes", 1, 0, Show::json}});
  for (const AlgorithmPlan &p : plans) {
    std::string runs, sizes;
    for (const std::string &b : p.bucket_algorithms) runs += (runs.empty() ? "" : ",") + b;
    for (double b : p.bucket_bytes) sizes += fmt::format("{}{:.0f}", sizes.empty() ? "" : ",", b);
    steps.add_row({p.algorithm, p.step.step_seconds, p.step.compute_seconds, p.step.contention_seconds,
                   p.step.exposed_network_seconds, p.step.exposed_codec_seconds, p.network_seconds,
                   p.codec_seconds, p.wire_bytes, static_cast<double>(o.batch) / p.step.step_seconds,
                   native ? Cell{native->step.step_seconds / p.step.step_seconds} : Cell{}, runs, sizes});
  }

  ReportTable crossovers({{"algorithm", "algorithm", 1, 0},
                          {"crossover_bandwidth", "crossover Gbit/s", 8e-9, 4},
                          {"wins_below", "wins below", 1, 0},
                          {"note", "note", 1, 0}});
  for (const std::string &a : o.algorithms) {
    if (a == "native" || o.ranks < 2) continue;
    progress.update("crossover of " + a, 0.7);
    const Crossover c = crossover_bandwidth(setup, a, codecs);
    crossovers.add_row({a, c.bandwidth ? Cell{*c.bandwidth} : Cell{}, std::string(c.wins_below ? "yes" : "no"),
                        c.bandwidth ? std::string(c.wins_below ? "beats native below this bandwidth"
                                                               : "beats native above this bandwidth")
                                    : c.note});
  }

  std::vector<Column> scaling_columns{{"ranks", "P", 1, 0}, {"local_batch", "batch/rank", 1, 0}};
  for (const std::string &a : o.algorithms) scaling_columns.push_back({a + "_step_seconds", a + " ms", 1e3, 3});
  scaling_columns.push_back({"best", "best", 1, 0});
  scaling_columns.push_back({"best_samples_per_second", "best samples/s", 1, 0});
  ReportTable scaling(scaling_columns);
  for (int p : o.scaling) {
    if (p < 1 || o.batch % p != 0) continue;
    const ComputeTimes c = p == o.ranks ? compute : compute_at(o.batch / p);
    const StepSetup s = setup_for(c, p, link);
    std::vector<Cell> row{std::int64_t{p}, std::int64_t{o.batch / p}};
    double best = 0;
    std::string best_name;
    for (const std::string &a : o.algorithms) {
      progress.update(fmt::format("{} on {} ranks", a, p), 0.8);
      const double t = plan_algorithm(s, a, codecs).step.step_seconds;
      row.push_back(t);
      if (best_name.empty() || t < best) {
        best = t;
        best_name = a;
      }
    }
    row.push_back(best_name);
    row.push_back(static_cast<double>(o.batch) / best);
    scaling.add_row(std::move(row));
  }

  // Charts: the step against bandwidth, and the step's network roofline.
  const std::string subtitle = fmt::format("{}, global batch {}, {} ranks, {} compute; latency {:.3g} us; "
                                           "buckets of {} MiB",
                                           model.name, o.batch, o.ranks, compute.source, link.latency * 1e6,
                                           bucket_mb);
  if (!o.output.svg.empty()) {
    std::vector<StepCurve> curves;
    for (const AlgorithmPlan &p : plans) {
      StepCurve curve{p.algorithm, {}, {link.bandwidth, p.step.step_seconds}};
      for (int i = 0; i <= 24; ++i) {
        StepSetup s = setup;
        s.link.bandwidth = std::pow(10.0, 6 + 0.25 * i);  // 8 Mbit/s to 8 Tbit/s
        curve.points.push_back({s.link.bandwidth, plan_algorithm(s, p.algorithm, codecs).step.step_seconds});
      }
      curves.push_back(std::move(curve));
    }
    write_svg_file(o.output.svg, render_svg(step_time_chart(
                                     curves, "dlk-perf plan: step time against link bandwidth", subtitle)));
  }
  if (!o.roofline_svg.empty()) {
    std::vector<StepPoint> points;
    for (const AlgorithmPlan &p : plans)
      if (p.wire_bytes > 0) points.push_back({p.algorithm, step_flop / p.wire_bytes, step_flop / p.step.step_seconds});
    std::vector<RooflineLink> links{{"1 Gbit", 1e9 / 8}, {"10 Gbit", 1e10 / 8}, {"100 Gbit", 1e11 / 8}};
    if (std::none_of(links.begin(), links.end(), [&](const RooflineLink &l) { return l.bandwidth == link.bandwidth; }))
      links.push_back({"planned link " + link.name, link.bandwidth});
    write_svg_file(o.roofline_svg,
                   render_svg(step_roofline_chart(step_flop / compute.total(), links, points,
                                                  "dlk-perf plan: compute x network roofline of the step", subtitle)));
  }
  progress.finish();

  if (o.output.json) {
    nlohmann::ordered_json doc;
    doc["schema"] = "dlk-perf/plan/1";
    doc["machine"] = header.json();
    doc["model"] = {{"name", model.name},
                    {"parameters", model.parameters},
                    {"layers", model.layers.size()},
                    {"gradients", model.gradients.size()},
                    {"forward_flop_per_sample", model.forward_flop()},
                    {"backward_flop_per_sample", model.backward_flop()}};
    doc["global_batch"] = o.batch;
    doc["ranks"] = o.ranks;
    doc["link"] = {{"name", link.name}, {"bandwidth", link.bandwidth}, {"latency_seconds", link.latency}};
    doc["compute"] = {{"source", compute.source},
                      {"threads", threads},
                      {"cores", cores},
                      {"contention", contention},
                      {"ranks_here", o.ranks_here},
                      {"sharing", sharing},
                      {"sharing_given", o.sharing > 0},
                      {"codec_sharing", codec_sharing},
                      {"seconds", compute.total()},
                      {"update_seconds", compute.update_seconds},
                      {"cached_layers", compute.cached_layers},
                      {"measured_layers", compute.measured_layers}};
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (size_t i = 0; i < model.layers.size(); ++i)
      layers.push_back({{"name", model.layers[i].name},
                        {"kind", plan_layer_kind_name(model.layers[i].kind)},
                        {"forward_seconds", compute.forward_seconds[i]},
                        {"backward_seconds", compute.backward_seconds[i]}});
    doc["compute"]["layers"] = std::move(layers);
    nlohmann::ordered_json buckets = nlohmann::ordered_json::array();
    for (const PlanBucket &b : synchronizer_buckets(model, bucket_bytes))
      buckets.push_back({{"bytes", b.bytes}, {"ready_after_layer", model.layers[b.ready_layer].name}});
    doc["buckets"] = std::move(buckets);
    if (measured) {
      nlohmann::ordered_json terms = nlohmann::ordered_json::array();
      for (const auto &[bytes, per_algorithm] : measured->at_bytes)
        for (const auto &[a, t] : per_algorithm)
          terms.push_back({{"algorithm", a},
                           {"bytes", bytes},
                           {"codec_seconds", t.codec_seconds},
                           {"message_latency_seconds", t.message_latency},
                           {"cpu_seconds", t.cpu_seconds}});
      doc["allreduce_measured"] = {{"file", o.allreduce}, {"ranks", measured->ranks}, {"terms", std::move(terms)}};
    }
    doc["bucket_bytes"] = bucket_bytes;
    doc["bucket_overhead_seconds"] = o.bucket_overhead;
    doc["own_bucket_overhead_seconds"] = o.own_bucket_overhead >= 0 ? o.own_bucket_overhead : o.bucket_overhead;
    doc["algorithm_overhead_seconds"] = algorithm_overhead;
    doc["min_compress_bytes"] = o.min_compress_bytes >= 0 ? nlohmann::json(o.min_compress_bytes) : nlohmann::json();
    doc["steps"] = steps.json();
    doc["winner"] = winner->algorithm;
    doc["crossovers"] = crossovers.json();
    doc["scaling"] = scaling.json();
    doc["wall_seconds"] = now_seconds() - start;
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  fmt::print("dlk-perf plan: {} ({} parameters, {:.3g} MFLOP per sample forward + backward), global batch {} "
             "on {} ranks ({} each); link {} = {}, latency {:.3g} us; {} buckets of at most {} MiB\n\n{}\n",
             model.name, model.parameters, (model.forward_flop() + model.backward_flop()) * 1e-6, o.batch,
             o.ranks, o.batch / o.ranks, link.name, bandwidth_text(link.bandwidth), link.latency * 1e6,
             synchronizer_buckets(model, bucket_bytes).size(), bucket_mb, header.text());
  fmt::print("compute: {}, {:.3f} ms a step ({} layers measured, {} from the cache); {} threads on {} cores, "
             "contention x{:.2f} while the background thread works\n\n",
             compute.source, compute.total() * 1e3, compute.measured_layers, compute.cached_layers, threads,
             cores, contention);
  fmt::print("predicted step per algorithm (compute + contention + exposed network + exposed codec):\n{}\n",
             steps.text());
  fmt::print("winner: {} ({:.3f} ms a step, {:.0f} samples/s)\n\n", winner->algorithm,
             winner->step.step_seconds * 1e3, static_cast<double>(o.batch) / winner->step.step_seconds);
  if (!crossovers.rows().empty())
    fmt::print("crossover: the link bandwidth (latency held) where each algorithm's step equals native's:\n{}\n",
               crossovers.text());
  fmt::print("scaling with the rank count (global batch {} held):\n{}\nwall time {:.1f} s\n", o.batch,
             scaling.text(), now_seconds() - start);
  return 0;
}

RunFn setup_plan(CLI::App &command) {
  auto o = std::make_shared<PlanOptions>();
  command.add_option("--model", o->model,
                     "lenet5, vgg_small, wide, resnet50, transformer, or a dlk-train/describe/1 JSON file")
      ->capture_default_str();
  command.add_option("--batch", o->batch, "global batch (split evenly over the ranks)")->capture_default_str();
  command.add_option("--ranks,-P", o->ranks, "ranks (P >= 1)")->capture_default_str();
  o->context.add_to(command);
  command.add_option("--compute", o->compute,
                     "roofline of a machine that is not here instead of measuring: peak=<FLOP/s>,bandwidth=<B/s> "
                     "(e.g. peak=19.5TFLOP/s,bandwidth=1.5TB/s)");
  command.add_option("--link", o->link,
                     "1gbit, 10gbit, 25gbit, 100gbit, <rate>mbit, or bandwidth=<rate>,latency=<time>")
      ->capture_default_str();
  command.add_option("--algorithms", o->algorithms, "what to predict")
      ->delimiter(',')
      ->check(CLI::IsMember(plan_algorithms()))
      ->capture_default_str();
  command.add_option("--bucket-mb", o->bucket_mb,
                     "the synchronizer's bucket cap in MiB (dlk-train's --bucket-mb); 0: dlk-train's default, a "
                     "quarter of the gradient bytes from 64 KiB to 25 MiB")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command.add_option("--topk-fraction", o->topk_fraction, "fraction of the elements topk sends")
      ->check(CLI::Range(1e-6, 1.0))
      ->capture_default_str();
  command.add_option("--contention", o->contention,
                     "how much slower compute and codecs run while the background thread works "
                     "(0: (threads + 1) / cores, at least 1)")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  command.add_option("--ranks-here", o->ranks_here,
                     "ranks that share this machine's cores (scripts/netbed.sh runs all P here): their compute "
                     "slows by max(1, ranks-here x threads / cores), the codecs timed alone by "
                     "max(1, ranks-here / cores)")
      ->capture_default_str();
  command.add_option("--sharing", o->sharing,
                     "how much slower compute runs with --ranks-here ranks on these cores, as measured "
                     "(0: max(1, ranks-here x threads / cores))")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  command.add_option("--layer-times", o->layer_times,
                     "the layers' times from dlk-train --json --timeline-steps N run on one rank at the local "
                     "batch, instead of timing them here (docs/plan.md)");
  command.add_option("--allreduce", o->allreduce,
                     "dlk-perf comm --json measured on the link with --ranks ranks at the buckets' sizes "
                     "(--sizes): each algorithm's codec, per-message latency and CPU time (docs/plan.md)");
  command.add_option("--bucket-overhead", o->bucket_overhead,
                     "seconds each bucket's all-reduce takes in training beyond the same call alone (the "
                     "background thread waiting for a core and for the other ranks), as measured "
                     "(scripts/plan_check.py: docs/plan.md); added to every bucket's network time (dlk's own "
                     "algorithms: --own-bucket-overhead where given)")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  command.add_option("--own-bucket-overhead", o->own_bucket_overhead,
                     "the bucket overhead of dlk's own algorithms (ring, ps, the codecs, topk; auto's buckets by "
                     "what it picks), calibrated on a run of one of them; default: --bucket-overhead")
      ->check(CLI::Range(0.0, 1000.0));
  command.add_option("--min-compress-bytes", o->min_compress_bytes,
                     "dlk-train's --min-compress-bytes: gradients under it all-reduced native in buckets of their "
                     "own by every algorithm but native, ring and ps (default: dlk-train's, 16384 for onebit and "
                     "topk, 0 for the others)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  command.add_option("--algorithm-overhead", o->algorithm_overhead,
                     "ALGORITHM=SECONDS[,...]: the bucket overhead of single algorithms, each calibrated on a "
                     "run of its own, instead of their family's; may be negative (more ranks than cores: the "
                     "all-reduce measured alone overstates training's; docs/plan.md)");
  command.add_option("--scaling", o->scaling, "rank counts of the scaling table")
      ->delimiter(',')
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  command.add_flag("--refresh", o->refresh, "measure the layers again, whatever the cache holds");
  command.add_option("--min-seconds", o->min_seconds, "time each layer at least this long")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command.add_option("--roofline-svg", o->roofline_svg, "write the compute x network roofline of the step (SVG)");
  o->output.add_to(command, "dlk-perf/plan/1", "the predicted step time against link bandwidth per algorithm");
  return [o] { return run_plan(*o); };
}

const RegisterSubcommand kRegister({"plan",
                                    "predicted step time of data-parallel training per all-reduce algorithm: "
                                    "compute x network roofline",
                                    setup_plan});

}  // namespace
}  // namespace dlk::perf
