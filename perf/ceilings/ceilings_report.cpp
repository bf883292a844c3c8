#include "perf/ceilings/ceilings_report.hpp"

#include <fmt/format.h>

#include "perf/machine/cpu_identity.hpp"

namespace dlk::perf {
namespace {

Cell percent(double value, double theory) { return theory > 0 ? Cell(100 * value / theory) : Cell(); }
Cell positive_or_empty(double v) { return v > 0 ? Cell(v) : Cell(); }

std::string size_text(size_t bytes) {
  if (bytes >= (size_t{1} << 20)) return fmt::format("{:.3g} MiB", static_cast<double>(bytes) / (1 << 20));
  return fmt::format("{:.3g} KiB", static_cast<double>(bytes) / 1024);
}

}  // namespace

ReportTable compute_ceilings_table(const MachineCeilings &m) {
  ReportTable t({{"dtype", "dtype", 1, 0},
                 {"isa", "isa", 1, 0},
                 {"instruction", "loop", 1, 0},
                 {"value", "best G/s", 1e-9, 1},
                 {"median", "median", 1e-9, 1},
                 {"min", "min", 1e-9, 1},
                 {"runs", "runs", 1, 0, Show::json},
                 {"unit", "unit", 1, 0},
                 {"theoretical_per_cycle_per_core", "theory /cyc/core", 1, 0},
                 {"theoretical", "theory G/s", 1e-9, 1},
                 {"percent_of_theoretical", "% theory", 1, 1}});
  for (const ComputeCeiling &c : m.compute)
    t.add_row({c.dtype, c.isa, c.instruction, c.value(),
               c.measured.count > 0 ? Cell(c.measured.median) : Cell(),
               c.measured.count > 0 ? Cell(c.measured.min) : Cell(),
               static_cast<std::int64_t>(c.measured.count), std::string(c.dtype == "int8" ? "op/s" : "flop/s"),
               positive_or_empty(c.theoretical_per_cycle), positive_or_empty(c.theoretical),
               c.measured.count > 0 ? percent(c.value(), c.theoretical) : Cell()});
  return t;
}

ReportTable memory_ceilings_table(const MachineCeilings &m) {
  ReportTable t({{"level", "level", 1, 0},
                 {"working_sets", "working sets", 1, 0, Show::text},
                 {"working_set_min", "", 1, 0, Show::json},
                 {"working_set_max", "", 1, 0, Show::json},
                 {"value", "GB/s", 1e-9, 1},
                 {"theoretical_per_cycle_per_core", "theory B/cyc/core", 1, 0},
                 {"theoretical", "theory GB/s", 1e-9, 1},
                 {"percent_of_theoretical", "% theory", 1, 1}});
  for (const MemoryCeiling &c : m.memory) {
    const bool measured = !m.sweep.empty();
    const std::string sets = size_text(c.working_set_min) + " - " + size_text(c.working_set_max);
    t.add_row({c.level,
               !measured                  ? std::string("reported by the backend")
               : c.found                  ? "plateau " + sets
               : c.bytes_per_second > 0   ? "no plateau; median of " + sets
                                          : std::string("no point"),
               static_cast<std::int64_t>(c.working_set_min), static_cast<std::int64_t>(c.working_set_max),
               positive_or_empty(c.bytes_per_second), positive_or_empty(c.theoretical_per_cycle),
               positive_or_empty(c.theoretical),
               measured && c.bytes_per_second > 0 ? percent(c.bytes_per_second, c.theoretical) : Cell()});
  }
  return t;
}

ReportTable sweep_table(const MachineCeilings &m) {
  ReportTable t({{"working_set_text", "working set", 1, 0, Show::text},
                 {"working_set", "", 1, 0, Show::json},
                 {"bytes_per_second", "best GB/s", 1e-9, 1},
                 {"median", "median GB/s", 1e-9, 1},
                 {"level", "fits in", 1, 0},
                 {"plateau", "plateau", 1, 0}});
  for (const SweepPoint &p : m.sweep) {
    std::string plateau;
    for (const MemoryCeiling &c : m.memory)
      if (c.found && p.working_set >= c.working_set_min && p.working_set <= c.working_set_max) plateau = c.level;
    t.add_row({size_text(p.working_set), static_cast<std::int64_t>(p.working_set), p.bytes_per_second, p.median,
               memory_level(p.working_set, m.threads, m.caches), plateau.empty() ? Cell() : Cell(plateau)});
  }
  return t;
}

std::string missing_dtypes_text(const MachineCeilings &m) {
  if (m.sweep.empty()) return "";  // a backend's own figures: it says what it has
  std::string out;
  const CpuIdentity &cpu = cpu_identity();
  if (!cpu.avx512_fp16)
    out += "f16: no peak loop: this CPU has no AVX512_FP16, so f16 data is converted and computed at the f32 rate\n";
  if (!m.compute_ceiling("bf16"))
    out += "bf16: no peak loop: this CPU has no AVX512_BF16 (bf16 runs at the f32 rate after conversion)\n";
  if (!m.compute_ceiling("int8"))
    out += "int8: no peak loop: this CPU has no AVX512_VNNI (the VEX AVX-VNNI form is never used)\n";
  return out;
}

MachineCeilings reported_ceilings(const dlk_context_info &info) {
  MachineCeilings m;
  m.cpu = info.device;
  m.microarchitecture = info.isa;
  m.isa = info.isa;
  m.threads = info.num_threads;
  m.version = DLK_PERF_VERSION;
  m.measured_at = "never (figures the backend reports)";
  auto add = [&](const char *dtype, double value) {
    if (value > 0) m.compute.push_back({dtype, info.isa, "reported by the backend", 0, value, {value, value, value, 0}});
  };
  add("f32", info.peak_f32_flops);
  add("f16", info.peak_f16_flops);
  add("bf16", info.peak_bf16_flops);
  add("int8", info.peak_int8_ops);
  if (info.memory_bandwidth > 0) {
    MemoryCeiling c;
    c.level = "device";
    c.found = true;
    c.bytes_per_second = info.memory_bandwidth;
    c.theoretical = info.memory_bandwidth;
    m.memory.push_back(c);
  }
  m.method = fmt::format("theoretical figures of backend {} (dlk_context_get_info); not measured", info.backend);
  return m;
}

}  // namespace dlk::perf
