#include "perf/ceilings/ceilings.hpp"

#include <stdexcept>
#include <string>

#include "perf/machine/cpu_caches.hpp"

namespace dlk::perf {
namespace {

Ceiling theoretical(const char *name, const char *unit, double value, const dlk_context_info &info) {
  if (value <= 0)
    throw std::runtime_error(std::string("backend ") + info.backend + " reports no " + name +
                             " and dlk-perf cannot measure it yet");
  return {name, unit, Summary{value, value, value, 0},
          std::string("theoretical, from dlk_context_get_info of backend ") + info.backend};
}

}  // namespace

RoofCeilings context_ceilings(const dlk_context_info &info, const CeilingOptions &options) {
  if (std::string(info.backend) != "cpu")
    return {theoretical("fp32_peak", "flop/s", info.peak_f32_flops, info),
            theoretical("memory_bandwidth", "byte/s", info.memory_bandwidth, info)};

  const int threads = info.num_threads;
  const SimdIsa isa = simd_isa_from_name(info.isa);
  const PeakMeasurement peak = measure_fp32_peak(isa, threads, options.peak);
  const size_t dram_bytes =
      options.dram_bytes ? options.dram_bytes : dram_working_set(cpu_cache_sizes().l3);
  const BandwidthMeasurement dram = measure_read_bandwidth(dram_bytes, threads, options.bandwidth);
  return {{"fp32_peak", "flop/s", peak.ops_per_second,
           std::string(simd_isa_name(isa)) + ": " + peak.method},
          {"dram_read", "byte/s", dram.bytes_per_second, dram.method}};
}

ReportTable ceilings_table(const RoofCeilings &ceilings) {
  ReportTable table({{"name", "ceiling", 1, 0},
                     {"value", "best", 1e-9, 1},
                     {"median", "median", 1e-9, 1},
                     {"min", "min", 1e-9, 1},
                     {"unit_text", "unit", 1, 0, Show::text},
                     {"unit", "unit", 1, 0, Show::json},
                     {"runs", "runs", 1, 0, Show::json},
                     {"method", "method", 1, 0}});
  for (const Ceiling *c : {&ceilings.compute, &ceilings.memory}) {
    const bool measured = c->runs.count > 0;
    table.add_row({c->name, c->value(), measured ? Cell(c->runs.median) : Cell(),
                   measured ? Cell(c->runs.min) : Cell(),
                   std::string(c->unit == "flop/s" ? "GFLOP/s" : "GB/s"), c->unit,
                   static_cast<std::int64_t>(c->runs.count), c->method});
  }
  return table;
}

}  // namespace dlk::perf
