#include "perf/fma_peak.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "perf/kernels/perf_kernels.hpp"
#include "perf/thread_team.hpp"
#include "perf/timing.hpp"

namespace dlk::perf {
namespace {

struct FmaLoop {
  float (*run)(std::int64_t iterations);
  double flops_per_iteration;
  const char *description;
};

FmaLoop fma_loop(SimdIsa isa) {
  switch (isa) {
    case SimdIsa::avx512:
      return {kernels::fma_loop_avx512, kernels::kFmaAvx512FlopsPerIteration,
              "zmm FMA loop, 16 independent accumulators"};
    case SimdIsa::avx2:
      return {kernels::fma_loop_avx2, kernels::kFmaAvx2FlopsPerIteration,
              "ymm FMA loop, 12 independent accumulators"};
    case SimdIsa::scalar: break;
  }
  return {kernels::mul_add_loop_scalar, kernels::kScalarFlopsPerIteration,
          "mulss+addss loop (no FMA), 12 independent accumulators"};
}

// Where the loop's result goes, so that no run can be optimized away.
std::atomic<float> g_sink{0};

}  // namespace

SimdIsa simd_isa_from_name(const std::string &name) {
  if (name == "avx512") return SimdIsa::avx512;
  if (name == "avx2") return SimdIsa::avx2;
  return SimdIsa::scalar;
}

const char *simd_isa_name(SimdIsa isa) {
  switch (isa) {
    case SimdIsa::avx512: return "avx512";
    case SimdIsa::avx2: return "avx2";
    case SimdIsa::scalar: break;
  }
  return "scalar";
}

PeakMeasurement measure_fp32_peak(SimdIsa isa, int threads, const PeakOptions &options) {
  const FmaLoop loop = fma_loop(isa);

  // Iterations for one run: double on one thread until a call takes 5 ms, then scale.
  std::int64_t iterations = 1 << 12;
  double seconds = 0;
  while (seconds < 0.005) {
    iterations *= 2;
    const double t0 = now_seconds();
    g_sink.store(loop.run(iterations));
    seconds = now_seconds() - t0;
  }
  iterations = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::llround(iterations * options.seconds_per_run / seconds)));

  auto timed_run = [&] {
    return run_on_threads(threads, [&](int) { g_sink.store(loop.run(iterations)); });
  };
  timed_run();  // warm-up: lets the clock settle at its vector-load frequency
  std::vector<double> rates;
  const double flops = loop.flops_per_iteration * static_cast<double>(iterations) * threads;
  for (int r = 0; r < options.runs; ++r) rates.push_back(flops / timed_run());

  return {summarize(rates),
          fmt::format("{}, {} thread{}, best of {} runs of {:.0f} ms", loop.description, threads,
                      threads == 1 ? "" : "s", options.runs, options.seconds_per_run * 1e3)};
}

}  // namespace dlk::perf
