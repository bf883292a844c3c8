#include "perf/ceilings/bandwidth_sweep.hpp"

#include <algorithm>
#include <cmath>

#include "perf/common/stats.hpp"

namespace dlk::perf {
namespace {

constexpr size_t kPage = 4096;

}  // namespace

std::vector<Plateau> find_plateaus(const std::vector<SweepPoint> &sweep, double tolerance,
                                   size_t min_points) {
  std::vector<Plateau> plateaus;
  size_t start = 0;
  std::vector<double> group;
  auto close = [&](size_t end) {
    if (group.size() >= min_points) plateaus.push_back({start, end, median(group)});
  };
  for (size_t i = 0; i < sweep.size(); ++i) {
    const double v = sweep[i].bytes_per_second;
    if (!group.empty()) {
      const double m = median(group);
      if (std::fabs(v - m) <= tolerance * m) {
        group.push_back(v);
        continue;
      }
      close(i - 1);
      // The point that broke the group may start the next one, or be a lone
      // transition point: it starts a group either way and is dropped with it
      // when too few points follow.
    }
    group.assign(1, v);
    start = i;
  }
  if (!group.empty()) close(sweep.size() - 1);
  return plateaus;
}

std::string memory_level(size_t working_set, int threads, const CacheSizes &caches) {
  const size_t per_thread = working_set / static_cast<size_t>(std::max(threads, 1));
  if (caches.l1d && per_thread <= caches.l1d) return "L1";
  if (caches.l2 && per_thread <= caches.l2) return "L2";
  if (caches.l3 && working_set <= caches.l3) return "L3";
  return "DRAM";
}

std::vector<MemoryLevelCeiling> memory_level_ceilings(const std::vector<SweepPoint> &sweep,
                                                      const std::vector<Plateau> &plateaus,
                                                      int threads, const CacheSizes &caches) {
  std::vector<MemoryLevelCeiling> levels;
  for (const char *name : {"L1", "L2", "L3", "DRAM"}) {
    const std::string level(name);
    if ((level == "L1" && !caches.l1d) || (level == "L2" && !caches.l2) ||
        (level == "L3" && !caches.l3))
      continue;
    MemoryLevelCeiling c;
    c.level = level;
    for (const Plateau &p : plateaus) {
      // A plateau belongs to the level of its middle point: its ends may reach
      // a little into the neighbours where a level spills gradually.
      const size_t middle = (p.first + p.last) / 2;
      if (memory_level(sweep[middle].working_set, threads, caches) != level) continue;
      if (c.found && p.last - p.first <= c.plateau.last - c.plateau.first) continue;
      c.found = true;
      c.plateau = p;
      c.working_set_min = sweep[p.first].working_set;
      c.working_set_max = sweep[p.last].working_set;
    }
    levels.push_back(c);
  }
  return levels;
}

std::vector<size_t> sweep_working_sets(size_t max_working_set, int threads) {
  const size_t n = static_cast<size_t>(std::max(threads, 1));
  std::vector<size_t> sets;
  for (double per_thread = kPage; per_thread * static_cast<double>(n) <= static_cast<double>(max_working_set) * 1.0001;
       per_thread *= std::sqrt(2.0)) {
    const size_t pages = static_cast<size_t>(std::llround(per_thread / kPage));
    const size_t set = std::max<size_t>(pages, 1) * kPage * n;
    if (sets.empty() || set != sets.back()) sets.push_back(set);
  }
  return sets;
}

std::vector<SweepPoint> measure_bandwidth_sweep(size_t max_working_set, int threads,
                                                const BandwidthOptions &options,
                                                const std::function<void(size_t, size_t)> &progress) {
  const std::vector<size_t> sets = sweep_working_sets(max_working_set, threads);
  const ReadShares shares(sets.back() / static_cast<size_t>(threads), threads);
  std::vector<SweepPoint> sweep;
  for (size_t i = 0; i < sets.size(); ++i) {
    progress(i, sets.size());
    const BandwidthMeasurement m =
        measure_read_bandwidth(shares, sets[i] / static_cast<size_t>(threads), options);
    sweep.push_back({m.working_set, m.bytes_per_second.max, m.bytes_per_second.median});
  }
  return sweep;
}

}  // namespace dlk::perf
