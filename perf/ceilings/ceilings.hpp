// The two ceilings a roofline needs for a dlk context: FP32 peak and memory
// bandwidth. For the CPU backend they are measured now (FMA loop of the ISA the
// context runs, DRAM read bandwidth, on the context's threads); other backends
// have no measurement yet, so their theoretical figures from
// dlk_context_get_info are used and said to be so.
#pragma once

#include <cstddef>
#include <string>

#include "dlk/dlk.h"
#include "perf/ceilings/fma_peak.hpp"
#include "perf/ceilings/memory_bandwidth.hpp"
#include "perf/common/report_table.hpp"
#include "perf/ceilings/roofline.hpp"
#include "perf/common/stats.hpp"

namespace dlk::perf {

// A ceiling is the best rate of its runs, as STREAM and ERT report it: on a
// shared machine interference (a busy SMT sibling of the host, another guest)
// only ever lowers a run, while the hardware's limit bounds every run.
struct Ceiling {
  std::string name;    // "fp32_peak", "dram_read"
  std::string unit;    // "flop/s" or "byte/s"
  Summary runs;        // over the runs; count 0 for a theoretical figure
  std::string method;  // how it was measured, or where it comes from
  double value() const { return runs.max; }
};

struct RoofCeilings {
  Ceiling compute;
  Ceiling memory;
  Roof roof() const { return {compute.value(), memory.value()}; }
};

struct CeilingOptions {
  size_t dram_bytes = 0;  // 0: dram_working_set() of the L3 the system reports
  PeakOptions peak;
  BandwidthOptions bandwidth;
};

// Throws std::runtime_error when the backend reports no ceiling and none can be measured.
RoofCeilings context_ceilings(const dlk_context_info &info, const CeilingOptions &options);

// One row per ceiling: name, value (best run), median, min, unit, runs, method.
ReportTable ceilings_table(const RoofCeilings &ceilings);

}  // namespace dlk::perf
