// `dlk-perf compress`: encode (with error feedback), decode and decode_add of
// every codec of libdlk_compress at 1 MiB to 256 MiB of float input, each placed
// against the read bandwidth of the memory level that holds its working set,
// measured in the same interleaved rounds on the single thread the codecs use.
// With --backend (cuda), the same on the context's device (dlk_device_codec.h)
// against the device's copy bandwidth (perf/workloads/device_codec_points.hpp).
// The JSON schema is documented in perf/README.md ("dlk-perf/compress/1").
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "dlk/dlk.hpp"
#include "dlk/dlk_compress.hpp"
#include "perf/charts/bandwidth_chart.hpp"
#include "perf/machine/clock_estimate.hpp"
#include "perf/workloads/compress_points.hpp"
#include "perf/workloads/device_codec_points.hpp"
#include "perf/machine/cpu_caches.hpp"
#include "perf/machine/machine_header.hpp"
#include "perf/common/output_options.hpp"
#include "perf/common/progress.hpp"
#include "perf/common/report_table.hpp"
#include "perf/commands/subcommand.hpp"
#include "perf/charts/svg_chart.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {
namespace {

// The codecs run on the caller's thread, so every roof is one thread's too.
constexpr int kThreads = 1;

struct CompressOptions {
  std::vector<std::int64_t> sizes_mib{1, 4, 16, 64, 256};
  std::vector<std::string> algorithms = codec_names();
  double topk_fraction = 0.01;
  std::string topk_selection = "sampled";
  std::string isa;  // empty: DLK_COMPRESS_ISA, else the best tier
  std::string backend;  // empty: libdlk_compress on the host; else a backend with device codecs
  OutputOptions output;
  TimingOptions timing;
};

// No thread pools to let go idle: back-to-back bursts of at least 20 ms.
TimingOptions default_timing() {
  TimingOptions t;
  t.warmup_calls = 1;
  t.min_burst_seconds = 0.02;
  t.pause_seconds = 0;
  t.min_samples = 5;
  t.min_seconds = 0.5;
  t.max_samples = 1000;
  t.max_seconds = 4;
  return t;
}

// Sizes and codecs of the device run where the command line left the host's:
// topk is not on the device; 256 MiB is five times an H100's L2.
void device_defaults(CompressOptions &o, const CLI::App &command) {
  if (command.count("--sizes") == 0) o.sizes_mib = {16, 64, 256};
  if (command.count("--algorithms") == 0) o.algorithms = {"onebit", "int8", "int4", "fp16", "bf16"};
}

int run_device_compress(const CompressOptions &o) {
  const double start = now_seconds();
  dlk_context_options options;
  dlk_context_options_init(&options);
  options.backend = o.backend.c_str();
  dlk::Context context(options);
  const dlk_context_info info = context.info();
  MachineHeader header = context_machine_header(info);
  ReportTable points = codec_points_table();
  Progress progress(o.output.progress());
  const double total = static_cast<double>(o.sizes_mib.size() * o.algorithms.size());
  int done = 0;
  for (const std::int64_t mib : o.sizes_mib)
    for (const std::string &algorithm : o.algorithms) {
      progress.update(fmt::format("{} at {} MiB on {}", algorithm, mib, info.backend), done++ / total);
      add_device_codec_points(points, context, algorithm, codec_params(algorithm, o.topk_fraction, o.topk_selection),
                              static_cast<size_t>(mib) << 20, o.timing);
    }
  progress.finish();
  const double wall = now_seconds() - start;
  if (o.output.json) {
    nlohmann::ordered_json doc;
    doc["schema"] = "dlk-perf/compress/1";
    doc["backend"] = info.backend;
    doc["device"] = info.device;
    doc["machine"] = header.json();
    doc["points"] = points.json();
    doc["wall_seconds"] = wall;
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  fmt::print("dlk-perf compress: device codecs (dlk_device_codec.h) on backend {}, device \"{}\"; encode with "
             "error feedback\n",
             info.backend, info.device);
  fmt::print("\n{}\n", header.text());
  fmt::print("moved = bytes each call must move (input, residual read and written, message, output or "
             "accumulator); roof = dlk_memcpy device to device of a buffer as large as the call's working set "
             "(set), bytes read + written per second, timed in the same interleaved rounds; a sample queues calls "
             "over at least 256 MiB of input, then synchronizes; medians per call\n\n{}",
             points.text());
  fmt::print("\nwall time {:.1f} s\n", wall);
  return 0;
}

int run_compress(const CompressOptions &o) {
  if (!o.backend.empty()) return run_device_compress(o);
  const double start = now_seconds();
  if (!o.isa.empty()) dlk::compress::set_isa(o.isa.c_str());
  const std::string isa = dlk::compress::isa();
  const CacheSizes caches = cpu_cache_sizes();
  MachineHeader header = machine_header(kThreads, estimate_clock_hz(kThreads));
  header.add("codecs", "codecs", fmt::format("libdlk_compress, isa {}", isa), {{"isa", isa}});

  ReportTable points = codec_points_table();
  Progress progress(o.output.progress());
  const double total = static_cast<double>(o.sizes_mib.size() * o.algorithms.size());
  int done = 0;
  for (const std::int64_t mib : o.sizes_mib)
    for (const std::string &algorithm : o.algorithms) {
      progress.update(fmt::format("{} at {} MiB", algorithm, mib), done++ / total);
      add_codec_points(points, caches, algorithm,
                       codec_params(algorithm, o.topk_fraction, o.topk_selection),
                       static_cast<size_t>(mib) << 20, o.timing);
    }
  progress.finish();
  const double wall = now_seconds() - start;

  const std::string topk = fmt::format("topk: {}, k = {} of the elements", o.topk_selection,
                                       o.topk_fraction);
  if (!o.output.svg.empty()) {
    std::vector<BandwidthPoint> chart;
    for (const auto &row : points.json())
      chart.push_back({row.at("algorithm"), row.at("operation"), row.at("working_set_bytes").get<double>(),
                       row.at("bytes_per_second").get<double>(), row.at("roof_bytes_per_second").get<double>()});
    write_svg_file(o.output.svg,
                   render_svg(bandwidth_chart(chart, fmt::format("dlk-perf compress: codecs, isa {}, 1 thread", isa),
                                              topk + "; encode with error feedback; medians")));
  }
  if (o.output.json) {
    nlohmann::ordered_json doc;
    doc["schema"] = "dlk-perf/compress/1";
    doc["isa"] = isa;
    doc["threads"] = kThreads;
    doc["machine"] = header.json();
    doc["topk_selection"] = o.topk_selection;
    doc["topk_fraction"] = o.topk_fraction;
    doc["caches"] = {{"l1d", caches.l1d}, {"l2", caches.l2}, {"l3", caches.l3}};
    doc["points"] = points.json();
    doc["wall_seconds"] = wall;
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  fmt::print("dlk-perf compress: libdlk_compress isa {}, {} thread; {}; encode with error "
             "feedback\n",
             isa, kThreads, topk);
  fmt::print("\n{}\n", header.text());
  fmt::print("moved = bytes each call must move (input, residual read and written, message, "
             "output or accumulator); roof = read bandwidth of a buffer as large as the call's "
             "working set (set), on {} thread, timed in the same interleaved rounds; medians\n\n{}",
             kThreads, points.text());
  fmt::print("\nwall time {:.1f} s\n", wall);
  return 0;
}

RunFn setup_compress(CLI::App &command) {
  auto o = std::make_shared<CompressOptions>();
  o->timing = default_timing();
  command.add_option("--sizes", o->sizes_mib, "buffer sizes in MiB of float input")
      ->delimiter(',')
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{4096}))
      ->capture_default_str();
  command.add_option("--algorithms", o->algorithms, "codecs to run")
      ->delimiter(',')
      ->check(CLI::IsMember(codec_names()))
      ->capture_default_str();
  command
      .add_option("--topk-fraction", o->topk_fraction, "k of topk as a fraction of the elements")
      ->check(CLI::Range(1e-6, 1.0))
      ->capture_default_str();
  command.add_option("--topk-selection", o->topk_selection, "topk threshold: sampled or exact")
      ->check(CLI::IsMember({"sampled", "exact"}))
      ->capture_default_str();
  command
      .add_option("--isa", o->isa,
                  "codec tier: avx512, avx2, scalar (default: DLK_COMPRESS_ISA, else the best)")
      ->check(CLI::IsMember({"avx512", "avx2", "scalar"}));
  command
      .add_option("--backend", o->backend,
                  "run the device codecs of this backend (cuda; dlk_device_codec.h) instead of libdlk_compress "
                  "on the host; then the default sizes are 16,64,256 and topk is left out")
      ->check(CLI::IsMember({"cuda"}));
  command.add_option("--min-seconds", o->timing.min_seconds, "time each point at least this long")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  o->output.add_to(command, "dlk-perf/compress/1",
                   "bytes moved per second against the working set, under the read bandwidth roof");
  return [o, &command] {
    if (!o->backend.empty()) device_defaults(*o, command);
    return run_compress(*o);
  };
}

const RegisterSubcommand kRegister({"compress",
                                    "gradient codecs: encode, decode, decode_add against the "
                                    "memory roof",
                                    setup_compress});

}  // namespace
}  // namespace dlk::perf
