#include "perf/ceilings/memory_bandwidth.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include <fmt/format.h>

#include "perf/kernels/perf_kernels.hpp"
#include "perf/common/thread_team.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {
namespace {

constexpr size_t kPage = 4096;
static_assert(kPage % kernels::kReadGranule == 0, "a share must be whole read granules");

std::string size_text(size_t bytes) {
  if (bytes >= (size_t{1} << 20) && bytes % (size_t{1} << 20) == 0)
    return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} KiB", bytes >> 10);
}

// Where the loop's result goes, so that no run can be optimized away.
std::atomic<std::uint64_t> g_sink{0};

}  // namespace

ReadLoop widest_read_loop() {
  if (__builtin_cpu_supports("avx512f")) return {kernels::read_loop_avx512, "zmm"};
  if (__builtin_cpu_supports("avx2")) return {kernels::read_loop_avx2, "ymm"};
  return {kernels::read_loop_generic, "baseline"};
}

size_t dram_working_set(size_t l3_bytes) {
  const size_t lo = size_t{256} << 20, hi = size_t{1} << 30;
  if (l3_bytes == 0) return hi;
  return std::clamp(8 * l3_bytes, lo, hi);
}

ReadShares::ReadShares(size_t share_bytes, int threads)
    : share_bytes_(std::max(kPage, share_bytes / kPage * kPage)),
      threads_(threads),
      base_(static_cast<char *>(std::aligned_alloc(kPage, share_bytes_ * static_cast<size_t>(threads))),
            &std::free) {
  if (!base_) throw std::bad_alloc();
  char *base = base_.get();
  const size_t share = share_bytes_;
  run_on_threads(threads, [&](int t) { std::memset(base + share * static_cast<size_t>(t), t + 1, share); });
}

BandwidthMeasurement measure_read_bandwidth(size_t working_set_bytes, int threads,
                                            const BandwidthOptions &options) {
  const ReadShares shares(working_set_bytes / static_cast<size_t>(threads), threads);
  return measure_read_bandwidth(shares, shares.share_bytes(), options);
}

BandwidthMeasurement measure_read_bandwidth(const ReadShares &shares, size_t bytes_per_thread,
                                            const BandwidthOptions &options) {
  const ReadLoop loop = widest_read_loop();
  const int threads = shares.threads();
  const size_t share = std::clamp(bytes_per_thread / kPage * kPage, kPage, shares.share_bytes());
  const size_t total = share * static_cast<size_t>(threads);

  int passes = 1;
  auto timed_run = [&] {
    return run_on_threads(threads, [&](int t) {
      std::uint64_t sum = 0;
      for (int p = 0; p < passes; ++p) sum += loop.run(shares.share(t), share);
      g_sink.fetch_add(sum);
    });
  };
  // Passes per run from the fastest of a few single passes on this thread: a
  // calibration that a busy machine preempts would otherwise choose runs so
  // short that starting the threads (tens of microseconds) dominates them.
  double pass_seconds = 1e30;
  for (int k = 0; k < 5; ++k) {
    const double t0 = now_seconds();
    g_sink.fetch_add(loop.run(shares.share(0), share));
    pass_seconds = std::min(pass_seconds, now_seconds() - t0);
  }
  passes = std::max(1, static_cast<int>(std::lround(options.seconds_per_run / pass_seconds)));
  timed_run();  // warm-up
  std::vector<double> rates;
  for (int r = 0; r < options.runs; ++r)
    rates.push_back(static_cast<double>(total) * passes / timed_run());

  BandwidthMeasurement m;
  m.bytes_per_second = summarize(rates);
  m.working_set = total;
  m.method = fmt::format("read-sum with {} loads of {} ({} per thread), {} thread{}, {} pass{} per run, "
                         "best of {} runs",
                         loop.loads, size_text(total), size_text(share), threads,
                         threads == 1 ? "" : "s", passes, passes == 1 ? "" : "es", options.runs);
  return m;
}

}  // namespace dlk::perf
