// Every ceiling of this machine's CPU for one thread count, the way
// `dlk-perf ceilings` measures them: peak ops/s per dtype and ISA tier, read
// bandwidth per memory level from a working-set sweep, each beside its
// theoretical figure (per-cycle width x cores x the clock measured in the same
// run). This is what the cache file holds and what every roof is drawn from.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "perf/ceilings/bandwidth_sweep.hpp"
#include "perf/machine/cpu_caches.hpp"
#include "perf/ceilings/fma_peak.hpp"
#include "perf/ceilings/memory_bandwidth.hpp"
#include "perf/common/stats.hpp"

namespace dlk::perf {

inline constexpr const char *kCeilingsSchema = "dlk-perf/ceilings/1";

struct ComputeCeiling {
  std::string dtype;        // "f32", "bf16", "int8"
  std::string isa;          // "avx512", "avx2", "scalar"
  std::string instruction;  // the loop
  double theoretical_per_cycle = 0;  // per core; 0: not known for this CPU
  double theoretical = 0;   // ops/s at the measured clock on all threads; 0: not known
  Summary measured;         // ops/s over the runs; the ceiling is the best
  double value() const { return measured.max; }
};

struct MemoryCeiling {
  std::string level;      // "L1", "L2", "L3", "DRAM"
  bool found = false;     // the sweep shows a plateau in this level
  // The plateau's median of best runs; without a plateau, the median of the
  // best runs of the level's sweep points (noise hid the plateau), 0 when the
  // sweep has no point there.
  double bytes_per_second = 0;
  size_t working_set_min = 0, working_set_max = 0;
  double theoretical_per_cycle = 0;  // per core; 0: not known (always for DRAM)
  double theoretical = 0;            // bytes/s; 0: not known
};

struct MachineCeilings {
  std::string key;          // what the cache is keyed by (ceilings_cache_key)
  std::string measured_at;  // UTC, ISO 8601
  std::string cpu;          // brand string
  int family = 0, model = 0;
  std::string microarchitecture;
  std::string isa;          // CpuIdentity::isa_text
  int threads = 0;
  std::string version;      // dlk version that measured them
  double clock_hz = 0;      // best add-chain estimate of the run, all threads busy
  CacheSizes caches;
  std::vector<ComputeCeiling> compute;
  std::vector<MemoryCeiling> memory;
  std::vector<SweepPoint> sweep;
  std::string method;       // how, in one paragraph

  // The ceiling of dtype on tier isa; the widest tier that has dtype when isa
  // is empty. nullptr when there is none.
  const ComputeCeiling *compute_ceiling(const std::string &dtype, const std::string &isa = "") const;
  // The peak a point of dtype can reach on the widest tier: its own ceiling,
  // except bf16, which widens exactly to f32 and runs on the f32 FMAs where
  // they are faster than vdpbf16ps (Intel's cores; measure_dtype_peaks' rule).
  const ComputeCeiling *roof_ceiling(const std::string &dtype) const;
  // nullptr when the level is absent or has no figure (see MemoryCeiling).
  const MemoryCeiling *memory_ceiling(const std::string &level) const;
  // Measured figures above their theoretical ones, one line each: each is a
  // bug (or a clock that rose after it was estimated) to explain.
  std::vector<std::string> above_theory() const;
};

struct MachineCeilingOptions {
  // Many short runs: on a machine shared with other work, the best run is
  // the one that ran alone, and short runs escape preemption more often.
  PeakOptions peak{41, 0.005};
  BandwidthOptions bandwidth{15, 0.002};
  size_t max_working_set = 0;  // 0: dram_working_set() of the L3 the system reports
};

// step: what is being measured; fraction: how far along the whole measurement is.
using ProgressFn = std::function<void(const std::string &step, double fraction)>;

// Measures everything on `threads` threads now.
MachineCeilings measure_machine_ceilings(int threads, const MachineCeilingOptions &options,
                                         const ProgressFn &progress);

// The cache key of this machine for `threads` threads: CPU brand, family, model,
// ISA extensions, threads, dlk version, schema.
std::string ceilings_cache_key(int threads);

// Schema dlk-perf/ceilings/1 (perf/README.md).
nlohmann::ordered_json to_json(const MachineCeilings &ceilings);
// Throws std::runtime_error naming the first member that is missing, of the
// wrong type or out of range (a non-positive measured figure, a schema other
// than dlk-perf/ceilings/1): a corrupt cache is never trusted.
MachineCeilings machine_ceilings_from_json(const nlohmann::json &doc);

}  // namespace dlk::perf
