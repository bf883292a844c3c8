#include "perf/machine/machine_header.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include <hwloc.h>
#include <sys/utsname.h>

#include <fmt/format.h>

#include "perf/machine/clock_estimate.hpp"
#include "perf/machine/cpu_caches.hpp"
#include "perf/machine/cpu_identity.hpp"
#include "perf/machine/system_memory.hpp"

namespace dlk::perf {
namespace {

std::string size_text(unsigned long long bytes) {
  if (bytes >= (1ull << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ull << 30));
  if (bytes >= (1ull << 20)) return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} KiB", bytes >> 10);
}

struct Topology {
  hwloc_topology_t topology = nullptr;
  bool loaded = false;
  Topology() {
    if (hwloc_topology_init(&topology) == 0) loaded = hwloc_topology_load(topology) == 0;
  }
  ~Topology() {
    if (topology) hwloc_topology_destroy(topology);
  }
  Topology(const Topology &) = delete;
  Topology &operator=(const Topology &) = delete;
  int count(hwloc_obj_type_t type) const { return hwloc_get_nbobjs_by_type(topology, type); }
  unsigned long long cache_size(hwloc_obj_type_t type) const {
    hwloc_obj_t obj = hwloc_get_obj_by_type(topology, type, 0);
    return obj && obj->attr ? obj->attr->cache.size : 0;
  }
};

}  // namespace

void MachineHeader::add(const std::string &key, const std::string &label, const std::string &text,
                        nlohmann::ordered_json json) {
  fields_.push_back({key, label, text, std::move(json)});
}

std::string MachineHeader::text() const {
  size_t width = 0;
  for (const Field &f : fields_) width = std::max(width, f.label.size());
  std::string out = "machine\n";
  for (const Field &f : fields_) out += fmt::format("  {:<{}}  {}\n", f.label + ":", width + 1, f.text);
  return out;
}

nlohmann::ordered_json MachineHeader::json() const {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const Field &f : fields_) out[f.key] = f.json;
  return out;
}

MachineHeader machine_header(int threads, double clock_hz) {
  const CpuIdentity &cpu = cpu_identity();
  const CoreThroughput core = core_throughput(cpu);
  MachineHeader h;
  h.add("cpu", "CPU",
        fmt::format("{} (family {} model {}, {})", cpu.brand, cpu.family, cpu.model,
                    core.microarchitecture),
        {{"brand", cpu.brand},
         {"family", cpu.family},
         {"model", cpu.model},
         {"microarchitecture", core.microarchitecture}});
  h.add("isa", "ISA", cpu.isa_text());

  Topology topo;
  if (topo.loaded) {
    const int packages = topo.count(HWLOC_OBJ_PACKAGE), cores = topo.count(HWLOC_OBJ_CORE),
              pus = topo.count(HWLOC_OBJ_PU), numa = topo.count(HWLOC_OBJ_NUMANODE);
    h.add("topology", "topology",
          fmt::format("{} package{}, {} core{}, {} hardware thread{}, {} NUMA node{}", packages,
                      packages == 1 ? "" : "s", cores, cores == 1 ? "" : "s", pus,
                      pus == 1 ? "" : "s", numa, numa == 1 ? "" : "s"),
          {{"packages", packages}, {"cores", cores}, {"pus", pus}, {"numa_nodes", numa}});
    std::string allowed = "unknown";
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set && hwloc_get_cpubind(topo.topology, set, HWLOC_CPUBIND_PROCESS) == 0) {
      char *list = nullptr;
      if (hwloc_bitmap_list_asprintf(&list, set) >= 0 && list) allowed = list;
      std::free(list);
    }
    hwloc_bitmap_free(set);
    h.add("threads", "threads",
          fmt::format("{} used; std::threads / OpenMP threads not pinned, on hardware threads {}",
                      threads, allowed),
          {{"used", threads}, {"pinned", false}, {"allowed_pus", allowed}});
    const unsigned long long l1 = topo.cache_size(HWLOC_OBJ_L1CACHE),
                             l2 = topo.cache_size(HWLOC_OBJ_L2CACHE),
                             l3 = topo.cache_size(HWLOC_OBJ_L3CACHE);
    const int l3_count = topo.count(HWLOC_OBJ_L3CACHE);
    h.add("caches", "caches",
          fmt::format("L1d {} + L2 {} per core, L3 {} x {}", size_text(l1), size_text(l2),
                      size_text(l3), l3_count),
          {{"l1d", l1}, {"l2", l2}, {"l3", l3}, {"l3_instances", l3_count}});
  } else {
    const CacheSizes c = cpu_cache_sizes();
    h.add("threads", "threads", fmt::format("{} used, not pinned (hwloc could not load the topology)", threads),
          {{"used", threads}, {"pinned", false}});
    h.add("caches", "caches",
          fmt::format("L1d {} + L2 {} per core, L3 {}", size_text(c.l1d), size_text(c.l2), size_text(c.l3)),
          {{"l1d", c.l1d}, {"l2", c.l2}, {"l3", c.l3}});
  }
  // The kernel's total, not hwloc's sum of NUMA nodes (system_memory.hpp says why);
  // the nodes' figure is shown beside it where the two disagree.
  const unsigned long long memory = system_memory_bytes();
  const unsigned long long numa_bytes = topo.loaded ? hwloc_get_root_obj(topo.topology)->total_memory : 0;
  const bool numa_differs = numa_bytes > 0 && (numa_bytes < 0.95 * static_cast<double>(memory) || numa_bytes > 1.05 * static_cast<double>(memory));
  h.add("memory", "memory",
        numa_differs ? fmt::format("{} (MemTotal; the NUMA nodes' counters say {})", size_text(memory), size_text(numa_bytes))
                     : size_text(memory),
        memory);
  if (clock_hz > 0)
    h.add("clock_hz", "clock",
          fmt::format("{:.2f} GHz (estimated from a dependent add chain on {} thread{})",
                      clock_hz * 1e-9, threads, threads == 1 ? "" : "s"),
          clock_hz);
  utsname u{};
  if (uname(&u) == 0)
    h.add("os", "OS", fmt::format("{} {} {}", u.sysname, u.release, u.machine));
  const unsigned hv = hwloc_get_api_version();
  h.add("versions", "versions",
        fmt::format("dlk {}, hwloc {}.{}.{}", DLK_PERF_VERSION, hv >> 16, (hv >> 8) & 0xff, hv & 0xff),
        {{"dlk", DLK_PERF_VERSION},
         {"hwloc", fmt::format("{}.{}.{}", hv >> 16, (hv >> 8) & 0xff, hv & 0xff)}});
  return h;
}

MachineHeader context_machine_header(const dlk_context_info &info) {
  MachineHeader h = machine_header(info.num_threads, estimate_clock_hz(info.num_threads));
  h.add("backend", "backend", fmt::format("{} ({}, isa {})", info.backend, info.device, info.isa),
        {{"name", info.backend}, {"device", info.device}, {"isa", info.isa}});
  return h;
}

}  // namespace dlk::perf
