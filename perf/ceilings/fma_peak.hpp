// Arithmetic ceilings of the CPU: register-blocked multiply-add loops
// (perf/kernels/) on every thread at once, the way ERT and the vendors' peak
// tests measure them. They move no data, so they are the roofs a GEMM can
// approach: FP32 FMA per ISA tier, BF16 dot products (vdpbf16ps), INT8 dot
// products (EVEX vpdpbusd).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perf/machine/cpu_identity.hpp"
#include "perf/common/stats.hpp"

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

// One instruction loop: what it measures and how much work one iteration is.
struct PeakLoop {
  std::string dtype;        // "f32", "bf16", "int8"
  SimdIsa isa;              // the tier it belongs to
  std::string instruction;  // "vfmadd231ps zmm", ...
  double ops_per_iteration; // FLOP (or integer OP for int8) per iteration
  double (*run)(std::int64_t iterations);
  double theoretical_per_cycle;  // per core, from core_throughput; 0 when unknown
};

// Every loop this CPU can run, f32 tiers from the widest down, then bf16, int8.
// f16 has a loop only where AVX512_FP16 exists, which no CPU this project runs
// on has; there the f16 entry is absent.
std::vector<PeakLoop> peak_loops(const CpuIdentity &cpu);

struct PeakMeasurement {
  Summary ops_per_second;  // over the runs
  std::string method;      // one line: loop, accumulators, threads, runs
};

PeakMeasurement measure_peak(const PeakLoop &loop, int threads, const PeakOptions &options);

// The f32 loop of `isa`; the caller makes sure the CPU has it
// (dlk_context_info.isa is what the context runs).
PeakMeasurement measure_fp32_peak(SimdIsa isa, int threads, const PeakOptions &options);

}  // namespace dlk::perf
