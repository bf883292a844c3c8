// `dlk-perf comm`: every all-reduce algorithm of libdlk_comm next to a plain
// MPI_Allreduce, in the same run, with nccl-tests' conventions: run it under
// mpirun (one process per rank); sizes from 4 KiB to 256 MiB by factors of 4;
// time per call = median over calls of the slowest rank's time (each call starts
// after a barrier); algbw = bytes / time, busbw = algbw * 2 (P - 1) / P. Each
// algorithm also gets the bytes it put on the wire and an alpha-beta fit
// (t = alpha + bytes / bandwidth, least squares in relative error over the sizes).
// Rank 0 prints. The JSON schema is documented in perf/README.md ("dlk-perf/comm/1").
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "dlk/dlk_comm.hpp"
#include "perf/machine/machine_header.hpp"
#include "perf/charts/network_chart.hpp"
#include "perf/common/output_options.hpp"
#include "perf/common/progress.hpp"
#include "perf/common/report_table.hpp"
#include "perf/common/stats.hpp"
#include "perf/commands/subcommand.hpp"
#include "perf/charts/svg_chart.hpp"

namespace dlk::perf {
namespace {

// "MPI_Allreduce": the peer, called directly; every other name is a dlk algorithm.
constexpr const char *kPeer = "MPI_Allreduce";

struct CommOptions {
  std::int64_t min_bytes = 4 << 10;
  std::int64_t max_bytes = std::int64_t(256) << 20;
  std::int64_t factor = 4;
  std::vector<std::string> algorithms{kPeer, "native", "ring", "ps",   "onebit",
                                      "int8", "int4",  "fp16", "bf16", "topk"};
  double topk_fraction = 0.01;
  std::vector<std::int64_t> sizes;  // when given: these instead of min_bytes * factor^k
  double min_seconds = 0.3;  // per point, at least
  int max_calls = 50;
  // dlk's algorithms through iallreduce and wait, the path of the synchronizer's
  // buckets (run on the communicator's thread, the caller free meanwhile)
  bool nonblocking = false;
  OutputOptions output;
};

std::vector<std::int64_t> sizes_of(const CommOptions &o) {
  if (!o.sizes.empty()) return o.sizes;
  std::vector<std::int64_t> sizes;
  for (std::int64_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= o.factor) sizes.push_back(bytes);
  return sizes;
}

// Above this, one algorithm's buffers at a time (residuals of a 256 MiB gradient
// are 256 MiB per algorithm and rank), so rounds are not interleaved there.
constexpr std::int64_t kInterleaveBytes = std::int64_t(64) << 20;

struct Point {
  std::string algorithm;
  std::int64_t bytes;
  std::vector<double> seconds;  // slowest rank's, per call
  std::uint64_t wire_bytes = 0; // most any rank sent in one call
  std::string ran;              // what ran (auto, warm-up)
  // per call, the most any rank spent in each phase (dlk_comm_report; 0 for MPI_Allreduce)
  std::vector<double> encode, decode, network;
  // per call, the most CPU time any rank's process spent (every thread, user and
  // system): over seconds, how busy an all-reduce keeps a rank's cores
  // (dlk-perf plan's contention, docs/plan.md)
  std::vector<double> cpu;
};

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

class Runner {
 public:
  Runner(const CommOptions &o, const dlk::comm::Communicator &comm)
      : o_(o), comm_(comm), size_(comm.size()) {}

  // One call of `point`'s algorithm on data (refilled from source first).
  double call(Point &point, dlk::comm::Buffer *buffer, std::vector<float> &data,
              const std::vector<float> &source) {
    std::memcpy(data.data(), source.data(), 4 * data.size());
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime(), cpu_start = process_cpu_seconds();
    std::uint64_t wire = 0;
    double phases[4] = {0, 0, 0, 0};  // encode, decode, network, process CPU
    if (!buffer) {
      MPI_Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(data.size()), MPI_FLOAT, MPI_SUM,
                    MPI_COMM_WORLD);
      wire = 4 * data.size() * 2 * static_cast<std::uint64_t>(size_ - 1) / size_;
      point.ran = kPeer;
    } else {
      const dlk_comm_report r =
          o_.nonblocking ? buffer->iallreduce(data.data()).wait() : buffer->allreduce(data.data());
      wire = r.wire_bytes_sent;
      point.ran = dlk_comm_algorithm_name(r.algorithm);
      phases[0] = r.encode_seconds;
      phases[1] = r.decode_seconds;
      phases[2] = r.network_seconds;
    }
    double seconds = MPI_Wtime() - start;
    phases[3] = process_cpu_seconds() - cpu_start;
    MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, phases, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    point.cpu.push_back(phases[3]);
    point.encode.push_back(phases[0]);
    point.decode.push_back(phases[1]);
    point.network.push_back(phases[2]);
    MPI_Allreduce(MPI_IN_PLACE, &wire, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    point.wire_bytes = wire;
    return seconds;
  }

  std::unique_ptr<dlk::comm::Buffer> buffer_for(const std::string &algorithm, uint64_t count) {
    if (algorithm == kPeer) return nullptr;
    dlk_comm_config c = dlk::comm::config(dlk::comm::algorithm_from_name(algorithm));
    c.topk_fraction = o_.topk_fraction;
    return std::make_unique<dlk::comm::Buffer>(comm_, count, c);
  }

  // Calls until min_seconds have passed (the same number on every rank: the
  // decision uses the slowest rank's times), at least 3, at most max_calls.
  std::vector<Point> measure(std::int64_t bytes) {
    const uint64_t count = static_cast<uint64_t>(bytes) / 4;
    std::vector<float> source(count), data(count);
    const int rank = comm_.rank();
    for (uint64_t i = 0; i < count; ++i)
      source[i] = static_cast<float>(((i * 2654435761u) ^ (uint64_t(rank) << 20)) % 20001) *
                      1e-4f - 1.0f;
    std::vector<Point> points;
    for (const std::string &a : o_.algorithms) points.push_back({a, bytes, {}, 0, "", {}, {}, {}, {}});

    auto run_rounds = [&](std::vector<size_t> which) {
      std::vector<std::unique_ptr<dlk::comm::Buffer>> buffers;
      for (size_t k : which) buffers.push_back(buffer_for(points[k].algorithm, count));
      for (size_t j = 0; j < which.size(); ++j)  // warm-up: residuals, auto's measurement
        call(points[which[j]], buffers[j].get(), data, source);
      double elapsed = 0;
      for (int c = 0; c < o_.max_calls && (c < 3 || elapsed < o_.min_seconds); ++c)
        for (size_t j = 0; j < which.size(); ++j) {
          const double t = call(points[which[j]], buffers[j].get(), data, source);
          points[which[j]].seconds.push_back(t);
          elapsed += t / static_cast<double>(which.size());
        }
    };
    if (bytes <= kInterleaveBytes) {
      std::vector<size_t> all(points.size());
      for (size_t k = 0; k < all.size(); ++k) all[k] = k;
      run_rounds(all);
    } else {
      for (size_t k = 0; k < points.size(); ++k) run_rounds({k});
    }
    return points;
  }

 private:
  const CommOptions &o_;
  const dlk::comm::Communicator &comm_;
  int size_;
};

struct Fit {
  double alpha = 0;      // seconds
  double bandwidth = 0;  // bytes per second
};

// Least squares of alpha + beta * bytes against the medians, each residual
// relative to its time, so that small and large sizes weigh alike.
Fit fit_alpha_beta(const std::vector<std::pair<double, double>> &bytes_seconds) {
  double s00 = 0, s01 = 0, s11 = 0, r0 = 0, r1 = 0;
  for (const auto &[n, t] : bytes_seconds) {
    const double w = 1 / (t * t);
    s00 += w;
    s01 += w * n;
    s11 += w * n * n;
    r0 += w * t;
    r1 += w * n * t;
  }
  const double det = s00 * s11 - s01 * s01;
  if (bytes_seconds.size() < 2 || det <= 0) return {};
  const double alpha = (r0 * s11 - r1 * s01) / det, beta = (s00 * r1 - s01 * r0) / det;
  return {alpha, beta > 0 ? 1 / beta : 0};
}

constexpr const char *kOneSizeNote =
    "not fitted: t = alpha + bytes / bandwidth needs two sizes or more, and this run measured one "
    "(give --min-bytes below --max-bytes)";

int run_comm(const CommOptions &o) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  }
  int result = 0;
  {
    const dlk::comm::Communicator comm(MPI_COMM_WORLD);
    const int p = comm.size();
    const bool printer = comm.rank() == 0;
    const double bus = p > 1 ? 2.0 * (p - 1) / p : 1.0;
    const double start = MPI_Wtime();

    ReportTable table({{"bytes", "bytes", 1, 0},
                       {"algorithm", "algorithm", 1, 0},
                       {"ran", "ran", 1, 0, Show::json},
                       {"calls", "calls", 1, 0, Show::json},
                       {"seconds", "time us", 1e6, 1},
                       {"seconds_min", "min us", 1e6, 1, Show::json},
                       {"algbw", "algbw GB/s", 1e-9, 3},
                       {"busbw", "busbw GB/s", 1e-9, 3},
                       {"wire_bytes_sent", "wire B/rank", 1, 0},
                       {"speedup_vs_mpi", "x MPI", 1, 2},
                       {"encode_seconds", "encode us", 1e6, 1, Show::json},
                       {"decode_seconds", "decode us", 1e6, 1, Show::json},
                       {"network_seconds", "network us", 1e6, 1, Show::json},
                       {"cpu_seconds", "CPU us", 1e6, 1, Show::json}});
    std::vector<std::vector<std::pair<double, double>>> per_algorithm(o.algorithms.size());
    Runner runner(o, comm);
    Progress progress(printer && o.output.progress());
    const std::vector<std::int64_t> all_sizes = sizes_of(o);
    const double sizes = static_cast<double>(all_sizes.size());
    int done = 0;
    for (const std::int64_t bytes : all_sizes) {
      progress.update(fmt::format("all-reduce of {} bytes, {} algorithms", bytes, o.algorithms.size()),
                      done++ / sizes);
      const std::vector<Point> points = runner.measure(bytes);
      double peer = 0;
      for (const Point &pt : points)
        if (pt.algorithm == kPeer) peer = median(pt.seconds);
      for (size_t k = 0; k < points.size(); ++k) {
        const Point &pt = points[k];
        const Summary s = summarize(pt.seconds);
        per_algorithm[k].push_back({static_cast<double>(bytes), s.median});
        const double algbw = static_cast<double>(bytes) / s.median;
        table.add_row({std::int64_t{bytes}, pt.algorithm, pt.ran, std::int64_t{s.count}, s.median,
                       s.min, algbw, algbw * bus, static_cast<std::int64_t>(pt.wire_bytes),
                       peer > 0 ? Cell{peer / s.median} : Cell{}, median(pt.encode),
                       median(pt.decode), median(pt.network), median(pt.cpu)});
      }
    }
    progress.finish();

    // A line through one size is not determined: with one size there is no fit,
    // and the report says so instead of a table of zeros.
    const bool can_fit = sizes >= 2;
    ReportTable fits({{"algorithm", "algorithm", 1, 0},
                      {"alpha_seconds", "alpha us", 1e6, 1},
                      {"bandwidth", "bandwidth GB/s", 1e-9, 3}});
    std::vector<NetworkSeries> chart;
    for (size_t k = 0; k < o.algorithms.size(); ++k) {
      const Fit f = fit_alpha_beta(per_algorithm[k]);
      if (can_fit) fits.add_row({o.algorithms[k], f.alpha, f.bandwidth});
      NetworkSeries series{o.algorithms[k], o.algorithms[k] == kPeer, {}, f.alpha, f.bandwidth > 0 ? 1 / f.bandwidth : 0};
      for (const auto &[n, t] : per_algorithm[k]) series.measured.push_back({n, t});
      chart.push_back(series);
    }
    const dlk_comm_properties props = comm.properties();
    if (printer && !o.output.svg.empty())
      write_svg_file(o.output.svg,
                     render_svg(network_chart(chart, fmt::format("dlk-perf comm: all-reduce, {} ranks", p),
                                              "float32 sum in place; median of the slowest rank per call; dashed: "
                                              "the fit t = alpha + bytes / bandwidth")));
    if (printer) {
      // Rank 0's machine (the others may be elsewhere) and the MPI library.
      MachineHeader header = machine_header(1, 0);
      char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
      int length = 0;
      MPI_Get_library_version(library, &length);
      std::string mpi(library, static_cast<size_t>(std::max(length, 0)));
      mpi = mpi.substr(0, mpi.find_first_of("\n,"));
      header.add("mpi", "MPI", fmt::format("{}, {} ranks, background thread {}", mpi, p, props.background ? "yes" : "no"),
                 {{"library", mpi}, {"ranks", p}});
      if (o.output.json) {
        nlohmann::ordered_json doc;
        doc["schema"] = "dlk-perf/comm/1";
        doc["ranks"] = p;
        doc["background_thread"] = props.background != 0;
        doc["topk_fraction"] = o.topk_fraction;
        doc["machine"] = header.json();
        doc["points"] = table.json();
        doc["fits"] = fits.json();
        if (!can_fit) doc["fits_note"] = kOneSizeNote;
        doc["wall_seconds"] = MPI_Wtime() - start;
        fmt::print("{}\n", doc.dump(2));
      } else {
        fmt::print("dlk-perf comm: {} ranks; float32 sum in place; time = median over calls of "
                   "the slowest rank; busbw = algbw * 2(P-1)/P; wire = bytes a rank sent; "
                   "x MPI = MPI_Allreduce time / this time; topk keeps {} of the elements\n\n{}\n{}",
                   p, o.topk_fraction, header.text(), table.text());
        if (can_fit)
          fmt::print("\nalpha-beta fit (t = alpha + bytes / bandwidth):\n{}", fits.text());
        else
          fmt::print("\nalpha-beta fit: {}\n", kOneSizeNote);
        fmt::print("\nwall time {:.1f} s\n", MPI_Wtime() - start);
      }
    }
  }
  if (!initialized) MPI_Finalize();
  return result;
}

RunFn setup_comm(CLI::App &command) {
  auto o = std::make_shared<CommOptions>();
  command.add_option("-b,--min-bytes", o->min_bytes, "smallest buffer in bytes (K, M, G: 2^10...)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::int64_t{4}, std::int64_t{1} << 34))
      ->capture_default_str();
  command.add_option("-e,--max-bytes", o->max_bytes, "largest buffer in bytes (K, M, G)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::int64_t{4}, std::int64_t{1} << 34))
      ->capture_default_str();
  command.add_option("-f,--factor", o->factor, "size multiplier between points")
      ->check(CLI::Range(2, 1024))
      ->capture_default_str();
  command.add_option("--sizes", o->sizes,
                     "these buffer sizes in bytes instead of --min-bytes x --factor^k (e.g. a model's "
                     "bucket sizes, for dlk-perf plan --allreduce)")
      ->delimiter(',')
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::int64_t{4}, std::int64_t{1} << 34));
  command.add_option("--algorithms", o->algorithms, "what to run (MPI_Allreduce is the peer)")
      ->delimiter(',')
      ->check(CLI::IsMember({kPeer, "auto", "native", "ring", "ps", "onebit", "int8", "int4",
                             "fp16", "bf16", "topk"}))
      ->capture_default_str();
  command.add_flag("--nonblocking", o->nonblocking,
                   "run dlk's algorithms as iallreduce then wait (the synchronizer's path: MPI "
                   "may run another algorithm there than in a blocking call)");
  command.add_option("--topk-fraction", o->topk_fraction, "fraction of the elements topk sends")
      ->check(CLI::Range(1e-6, 1.0))
      ->capture_default_str();
  command.add_option("--min-seconds", o->min_seconds, "time each point at least this long")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command.add_option("--max-calls", o->max_calls, "at most this many timed calls per point")
      ->check(CLI::Range(3, 100000))
      ->capture_default_str();
  o->output.add_to(command, "dlk-perf/comm/1",
                   "time against message size per algorithm, with its alpha-beta line (rank 0 writes it)");
  return [o] { return run_comm(*o); };
}

const RegisterSubcommand kRegister({"comm",
                                    "all-reduce: every libdlk_comm algorithm next to "
                                    "MPI_Allreduce (run under mpirun)",
                                    setup_comm});

}  // namespace
}  // namespace dlk::perf
