#include "perf/machine/clock_estimate.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>

#include "perf/kernels/perf_kernels.hpp"
#include "perf/common/thread_team.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {
namespace {

std::atomic<std::uint64_t> g_sink{0};

}  // namespace

double estimate_clock_hz(int threads, int runs) {
  // Iterations for about 0.5 ms: short, so that many runs escape preemption on
  // a busy machine (a preempted run only lowers its own estimate).
  std::int64_t iterations = 1 << 8;
  double seconds = 0;
  while (seconds < 1e-4) {
    iterations *= 2;
    const double t0 = now_seconds();
    g_sink.fetch_add(kernels::add_chain_loop(iterations));
    seconds = now_seconds() - t0;
  }
  iterations *= 5;
  std::mutex mutex;
  double best = 0;
  for (int r = 0; r < runs; ++r) {
    // Every thread busy at once (the clock of a loaded chip), each timing itself.
    run_on_threads(threads, [&](int) {
      for (int k = 0; k < 4; ++k) {
        const double t0 = now_seconds();
        g_sink.fetch_add(kernels::add_chain_loop(iterations));
        const double hz = kernels::kAddChainCyclesPerIteration * static_cast<double>(iterations) /
                          (now_seconds() - t0);
        std::lock_guard<std::mutex> lock(mutex);
        best = std::max(best, hz);
      }
    });
  }
  return best;
}

}  // namespace dlk::perf
