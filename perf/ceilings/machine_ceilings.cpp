#include "perf/ceilings/machine_ceilings.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <stdexcept>

#include <fmt/format.h>

#include "perf/machine/clock_estimate.hpp"
#include "perf/machine/cpu_identity.hpp"

namespace dlk::perf {
namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

double theoretical_memory_per_cycle(const std::string &level, const CoreThroughput &t) {
  if (level == "L1") return t.l1_read;
  if (level == "L2") return t.l2_read;
  if (level == "L3") return t.l3_read;
  return 0;
}

// Reading the cache file: every member checked before it is used.
template <typename T>
T member(const nlohmann::json &object, const char *name, const std::string &where) {
  if (!object.is_object() || !object.contains(name))
    throw std::runtime_error(fmt::format("{}: member '{}' is missing", where, name));
  const nlohmann::json &v = object.at(name);
  if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) throw std::runtime_error(fmt::format("{}: '{}' is not a string", where, name));
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) throw std::runtime_error(fmt::format("{}: '{}' is not a boolean", where, name));
  } else {
    if (!v.is_number()) throw std::runtime_error(fmt::format("{}: '{}' is not a number", where, name));
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < 0)
      throw std::runtime_error(fmt::format("{}: '{}' is {}; must be finite and >= 0", where, name, d));
  }
  return v.get<T>();
}

double positive(double value, const char *name, const std::string &where) {
  if (!(value > 0)) throw std::runtime_error(fmt::format("{}: '{}' must be > 0", where, name));
  return value;
}

const nlohmann::json &array_member(const nlohmann::json &object, const char *name,
                                   const std::string &where) {
  if (!object.contains(name) || !object.at(name).is_array())
    throw std::runtime_error(fmt::format("{}: '{}' is missing or not an array", where, name));
  return object.at(name);
}

}  // namespace

const ComputeCeiling *MachineCeilings::compute_ceiling(const std::string &dtype,
                                                       const std::string &isa_name) const {
  for (const ComputeCeiling &c : compute)  // widest tier first (peak_loops' order)
    if (c.dtype == dtype && (isa_name.empty() || c.isa == isa_name)) return &c;
  return nullptr;
}

const ComputeCeiling *MachineCeilings::roof_ceiling(const std::string &dtype) const {
  const ComputeCeiling *own = compute_ceiling(dtype);
  if (!own || dtype != "bf16") return own;
  const ComputeCeiling *f32 = compute_ceiling("f32", own->isa);
  return f32 && f32->value() > own->value() ? f32 : own;
}

const MemoryCeiling *MachineCeilings::memory_ceiling(const std::string &level) const {
  for (const MemoryCeiling &m : memory)
    if (m.level == level && m.bytes_per_second > 0) return &m;
  return nullptr;
}

std::vector<std::string> MachineCeilings::above_theory() const {
  std::vector<std::string> lines;
  for (const ComputeCeiling &c : compute)
    if (c.theoretical > 0 && c.value() > c.theoretical)
      lines.push_back(fmt::format("{} {} measured {:.1f} G/s above its theoretical {:.1f} G/s",
                                  c.dtype, c.isa, c.value() * 1e-9, c.theoretical * 1e-9));
  for (const MemoryCeiling &m : memory)
    if (m.theoretical > 0 && m.bytes_per_second > m.theoretical)
      lines.push_back(fmt::format("{} read measured {:.1f} GB/s above its theoretical {:.1f} GB/s",
                                  m.level, m.bytes_per_second * 1e-9, m.theoretical * 1e-9));
  return lines;
}

std::string ceilings_cache_key(int threads) {
  const CpuIdentity &cpu = cpu_identity();
  return fmt::format("cpu={};family={};model={};isa={};threads={};dlk={};schema={}", cpu.brand,
                     cpu.family, cpu.model, cpu.isa_text(), threads, DLK_PERF_VERSION,
                     kCeilingsSchema);
}

MachineCeilings measure_machine_ceilings(int threads, const MachineCeilingOptions &options,
                                         const ProgressFn &progress) {
  const CpuIdentity &cpu = cpu_identity();
  const CoreThroughput throughput = core_throughput(cpu);
  MachineCeilings m;
  m.key = ceilings_cache_key(threads);
  m.measured_at = utc_now();
  m.cpu = cpu.brand;
  m.family = cpu.family;
  m.model = cpu.model;
  m.microarchitecture = throughput.microarchitecture;
  m.isa = cpu.isa_text();
  m.threads = threads;
  m.version = DLK_PERF_VERSION;
  m.caches = cpu_cache_sizes();

  const std::vector<PeakLoop> loops = peak_loops(cpu);
  const std::vector<size_t> sets = sweep_working_sets(
      options.max_working_set ? options.max_working_set : dram_working_set(m.caches.l3), threads);
  // Progress weights: a peak loop runs about as long as four sweep points.
  const double total = 4.0 * static_cast<double>(loops.size()) + static_cast<double>(sets.size());

  // The clock is estimated between the loops too, and the highest estimate is
  // used: a theoretical figure must bound every run of the measurement.
  m.clock_hz = estimate_clock_hz(threads);
  for (size_t i = 0; i < loops.size(); ++i) {
    const PeakLoop &loop = loops[i];
    progress(fmt::format("{} peak, {} ({})", loop.dtype, simd_isa_name(loop.isa), loop.instruction),
             4.0 * static_cast<double>(i) / total);
    const PeakMeasurement p = measure_peak(loop, threads, options.peak);
    m.clock_hz = std::max(m.clock_hz, estimate_clock_hz(threads));
    m.compute.push_back({loop.dtype, simd_isa_name(loop.isa), loop.instruction,
                         loop.theoretical_per_cycle, 0, p.ops_per_second});
  }

  m.sweep = measure_bandwidth_sweep(
      sets.back(), threads, options.bandwidth, [&](size_t i, size_t count) {
        progress(fmt::format("read bandwidth sweep, {} KiB ({} of {})", sets[i] >> 10, i + 1, count),
                 (4.0 * static_cast<double>(loops.size()) + static_cast<double>(i)) / total);
      });
  m.clock_hz = std::max(m.clock_hz, estimate_clock_hz(threads));
  const std::vector<Plateau> plateaus = find_plateaus(m.sweep);
  for (const MemoryLevelCeiling &level : memory_level_ceilings(m.sweep, plateaus, threads, m.caches)) {
    MemoryCeiling c;
    c.level = level.level;
    c.found = level.found;
    if (level.found) {
      c.bytes_per_second = level.plateau.bytes_per_second;
      c.working_set_min = level.working_set_min;
      c.working_set_max = level.working_set_max;
    } else {
      std::vector<double> in_level;
      for (const SweepPoint &p : m.sweep)
        if (memory_level(p.working_set, threads, m.caches) == level.level) {
          in_level.push_back(p.bytes_per_second);
          c.working_set_min = c.working_set_min ? c.working_set_min : p.working_set;
          c.working_set_max = p.working_set;
        }
      if (!in_level.empty()) c.bytes_per_second = median(in_level);
    }
    c.theoretical_per_cycle = theoretical_memory_per_cycle(level.level, throughput);
    m.memory.push_back(c);
  }

  for (ComputeCeiling &c : m.compute) c.theoretical = c.theoretical_per_cycle * threads * m.clock_hz;
  for (MemoryCeiling &c : m.memory) c.theoretical = c.theoretical_per_cycle * threads * m.clock_hz;

  const ReadLoop read = widest_read_loop();
  m.method = fmt::format(
      "{} thread{} (std::threads, not pinned). Peaks: each loop best of {} runs of {:.0f} ms. "
      "Memory: read-sum with {} loads over {} working sets from {} KiB to {} MiB (steps of "
      "sqrt 2), best of {} runs of {:.0f} ms each; plateaus are runs of 3 or more points within "
      "12 % of their median, each named by the level its middle working set fits in; a level without a "
      "plateau gets the median of its points. Theoretical: "
      "per-cycle width of the {} core x threads x the highest add-chain clock estimate of the "
      "run ({:.2f} GHz).",
      threads, threads == 1 ? "" : "s", options.peak.runs, options.peak.seconds_per_run * 1e3,
      read.loads, sets.size(), sets.front() >> 10, sets.back() >> 20, options.bandwidth.runs,
      options.bandwidth.seconds_per_run * 1e3, throughput.microarchitecture, m.clock_hz * 1e-9);
  return m;
}

nlohmann::ordered_json to_json(const MachineCeilings &m) {
  nlohmann::ordered_json doc;
  doc["schema"] = kCeilingsSchema;
  doc["key"] = m.key;
  doc["measured_at"] = m.measured_at;
  doc["cpu"] = {{"brand", m.cpu},
                {"family", m.family},
                {"model", m.model},
                {"microarchitecture", m.microarchitecture},
                {"isa", m.isa}};
  doc["threads"] = m.threads;
  doc["version"] = m.version;
  doc["clock_hz"] = m.clock_hz;
  doc["caches"] = {{"l1d", m.caches.l1d}, {"l2", m.caches.l2}, {"l3", m.caches.l3}};
  nlohmann::ordered_json compute = nlohmann::ordered_json::array();
  for (const ComputeCeiling &c : m.compute)
    compute.push_back({{"dtype", c.dtype},
                       {"isa", c.isa},
                       {"instruction", c.instruction},
                       {"unit", c.dtype == "int8" ? "op/s" : "flop/s"},
                       {"value", c.value()},
                       {"median", c.measured.median},
                       {"min", c.measured.min},
                       {"runs", c.measured.count},
                       {"theoretical_per_cycle_per_core", c.theoretical_per_cycle},
                       {"theoretical", c.theoretical}});
  doc["compute"] = compute;
  nlohmann::ordered_json memory = nlohmann::ordered_json::array();
  for (const MemoryCeiling &c : m.memory)
    memory.push_back({{"level", c.level},
                      {"found", c.found},
                      {"unit", "byte/s"},
                      {"value", c.bytes_per_second},
                      {"working_set_min", c.working_set_min},
                      {"working_set_max", c.working_set_max},
                      {"theoretical_per_cycle_per_core", c.theoretical_per_cycle},
                      {"theoretical", c.theoretical}});
  doc["memory"] = memory;
  nlohmann::ordered_json sweep = nlohmann::ordered_json::array();
  for (const SweepPoint &p : m.sweep)
    sweep.push_back({{"working_set", p.working_set},
                     {"bytes_per_second", p.bytes_per_second},
                     {"median", p.median}});
  doc["sweep"] = sweep;
  doc["method"] = m.method;
  return doc;
}

MachineCeilings machine_ceilings_from_json(const nlohmann::json &doc) {
  const std::string top = "ceilings";
  if (member<std::string>(doc, "schema", top) != kCeilingsSchema)
    throw std::runtime_error(fmt::format("ceilings: schema is '{}', not '{}'",
                                         doc.at("schema").get<std::string>(), kCeilingsSchema));
  MachineCeilings m;
  m.key = member<std::string>(doc, "key", top);
  m.measured_at = member<std::string>(doc, "measured_at", top);
  const nlohmann::json &cpu = doc.contains("cpu") ? doc.at("cpu") : nlohmann::json();
  m.cpu = member<std::string>(cpu, "brand", "cpu");
  m.family = member<int>(cpu, "family", "cpu");
  m.model = member<int>(cpu, "model", "cpu");
  m.microarchitecture = member<std::string>(cpu, "microarchitecture", "cpu");
  m.isa = member<std::string>(cpu, "isa", "cpu");
  m.threads = static_cast<int>(positive(member<int>(doc, "threads", top), "threads", top));
  m.version = member<std::string>(doc, "version", top);
  m.clock_hz = positive(member<double>(doc, "clock_hz", top), "clock_hz", top);
  const nlohmann::json &caches = doc.contains("caches") ? doc.at("caches") : nlohmann::json();
  m.caches.l1d = member<size_t>(caches, "l1d", "caches");
  m.caches.l2 = member<size_t>(caches, "l2", "caches");
  m.caches.l3 = member<size_t>(caches, "l3", "caches");
  for (const auto &c : array_member(doc, "compute", top)) {
    ComputeCeiling x;
    x.dtype = member<std::string>(c, "dtype", "compute");
    x.isa = member<std::string>(c, "isa", "compute");
    x.instruction = member<std::string>(c, "instruction", "compute");
    x.measured.max = positive(member<double>(c, "value", "compute"), "value", "compute " + x.dtype);
    x.measured.median = member<double>(c, "median", "compute");
    x.measured.min = member<double>(c, "min", "compute");
    x.measured.count = member<int>(c, "runs", "compute");
    x.theoretical_per_cycle = member<double>(c, "theoretical_per_cycle_per_core", "compute");
    x.theoretical = member<double>(c, "theoretical", "compute");
    m.compute.push_back(x);
  }
  if (m.compute.empty()) throw std::runtime_error("ceilings: 'compute' is empty");
  for (const auto &c : array_member(doc, "memory", top)) {
    MemoryCeiling x;
    x.level = member<std::string>(c, "level", "memory");
    x.found = member<bool>(c, "found", "memory");
    x.bytes_per_second = member<double>(c, "value", "memory");
    if (x.found) positive(x.bytes_per_second, "value", "memory " + x.level);
    x.working_set_min = member<size_t>(c, "working_set_min", "memory");
    x.working_set_max = member<size_t>(c, "working_set_max", "memory");
    x.theoretical_per_cycle = member<double>(c, "theoretical_per_cycle_per_core", "memory");
    x.theoretical = member<double>(c, "theoretical", "memory");
    m.memory.push_back(x);
  }
  for (const auto &p : array_member(doc, "sweep", top))
    m.sweep.push_back({member<size_t>(p, "working_set", "sweep"),
                       positive(member<double>(p, "bytes_per_second", "sweep"), "bytes_per_second", "sweep"),
                       member<double>(p, "median", "sweep")});
  m.method = member<std::string>(doc, "method", top);
  return m;
}

}  // namespace dlk::perf
