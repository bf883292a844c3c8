#include "perf/ceilings/fma_peak.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "perf/kernels/perf_kernels.hpp"
#include "perf/common/thread_team.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {
namespace {

// Where the loop's result goes, so that no run can be optimized away.
std::atomic<double> g_sink{0};

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

std::vector<PeakLoop> peak_loops(const CpuIdentity &cpu) {
  const CoreThroughput t = core_throughput(cpu);
  std::vector<PeakLoop> loops;
  if (cpu.avx512f)
    loops.push_back({"f32", SimdIsa::avx512, "vfmadd231ps zmm, 16 accumulators",
                     kernels::kFmaAvx512FlopsPerIteration,
                     [](std::int64_t n) { return double(kernels::fma_loop_avx512(n)); }, t.f32_avx512});
  if (cpu.avx2 && cpu.fma)
    loops.push_back({"f32", SimdIsa::avx2, "vfmadd231ps ymm, 12 accumulators",
                     kernels::kFmaAvx2FlopsPerIteration,
                     [](std::int64_t n) { return double(kernels::fma_loop_avx2(n)); }, t.f32_avx2});
  loops.push_back({"f32", SimdIsa::scalar, "mulss + addss (no FMA), 12 accumulators",
                   kernels::kScalarFlopsPerIteration,
                   [](std::int64_t n) { return double(kernels::mul_add_loop_scalar(n)); },
                   t.f32_scalar});
  if (cpu.avx512_bf16)
    loops.push_back({"bf16", SimdIsa::avx512, "vdpbf16ps zmm, 16 accumulators",
                     kernels::kDpbf16Avx512FlopsPerIteration,
                     [](std::int64_t n) { return double(kernels::dpbf16_loop_avx512(n)); },
                     t.bf16_avx512});
  if (cpu.avx512_vnni)
    loops.push_back({"int8", SimdIsa::avx512, "vpdpbusd zmm (EVEX), 16 accumulators",
                     kernels::kDpbusdAvx512OpsPerIteration,
                     [](std::int64_t n) { return double(kernels::dpbusd_loop_avx512(n)); },
                     t.int8_avx512});
  // dlk's avx512 tier runs bf16 (and int8) GEMM on AMX tiles where the CPU has them.
  if (cpu.avx512f && cpu.amx_bf16)
    loops.push_back({"bf16", SimdIsa::avx512, "AMX tdpbf16ps, 4 accumulator tiles",
                     kernels::kTdpbf16AmxFlopsPerIteration,
                     [](std::int64_t n) { return double(kernels::tdpbf16_loop_amx(n)); }, 0});
  if (cpu.avx512f && cpu.amx_int8)
    loops.push_back({"int8", SimdIsa::avx512, "AMX tdpbusd, 4 accumulator tiles",
                     kernels::kTdpbusdAmxOpsPerIteration,
                     [](std::int64_t n) { return double(kernels::tdpbusd_loop_amx(n)); }, 0});
  return loops;
}

PeakMeasurement measure_peak(const PeakLoop &loop, int threads, const PeakOptions &options) {
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
  const double ops = loop.ops_per_iteration * static_cast<double>(iterations) * threads;
  for (int r = 0; r < options.runs; ++r) rates.push_back(ops / timed_run());

  return {summarize(rates),
          fmt::format("{}, {} thread{}, best of {} runs of {:.0f} ms", loop.instruction, threads,
                      threads == 1 ? "" : "s", options.runs, options.seconds_per_run * 1e3)};
}

PeakMeasurement measure_fp32_peak(SimdIsa isa, int threads, const PeakOptions &options) {
  for (const PeakLoop &loop : peak_loops(cpu_identity()))
    if (loop.dtype == "f32" && loop.isa == isa) return measure_peak(loop, threads, options);
  throw std::runtime_error(fmt::format("this CPU cannot run the {} f32 loop", simd_isa_name(isa)));
}

}  // namespace dlk::perf
