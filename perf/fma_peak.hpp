// The FP32 arithmetic ceiling of the CPU for one ISA: a register-blocked FMA loop
// (perf/kernels/) on every thread at once, the way ERT and the vendors' peak
// tests measure it. It moves no data, so it is the roof a GEMM can approach.
#pragma once

#include <string>

#include "perf/stats.hpp"

namespace dlk::perf {

enum class SimdIsa { scalar, avx2, avx512 };

// "avx512" and "avx2" as dlk_context_info.isa spells them; anything else is scalar.
SimdIsa simd_isa_from_name(const std::string &name);
const char *simd_isa_name(SimdIsa isa);

struct PeakOptions {
  // Many short runs: on a shared host the FMA units are sometimes shared with a
  // neighbour for a fraction of a second, and the ceiling is the best run.
  int runs = 15;  // timed runs after one warm-up run
  double seconds_per_run = 0.02;
};

struct PeakMeasurement {
  Summary flops_per_second;  // over the runs
  std::string method;        // one line: loop, accumulators, threads, runs
};

// The caller makes sure the CPU has `isa` (dlk_context_info.isa is what the context runs).
PeakMeasurement measure_fp32_peak(SimdIsa isa, int threads, const PeakOptions &options);

}  // namespace dlk::perf
