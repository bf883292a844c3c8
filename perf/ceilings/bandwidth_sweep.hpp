// ERT-style working-set sweep: read bandwidth from a few KiB per thread up to
// far beyond the last cache, then the plateaus of that curve, each named by the
// memory level its working set fits in. The plateaus are found in the data;
// the cache sizes the system reports only name them.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "perf/machine/cpu_caches.hpp"
#include "perf/ceilings/memory_bandwidth.hpp"

namespace dlk::perf {

struct SweepPoint {
  size_t working_set = 0;     // bytes, all threads together
  double bytes_per_second = 0;  // best run
  double median = 0;            // median run
};

struct Plateau {
  size_t first = 0, last = 0;  // indices into the sweep, inclusive
  double bytes_per_second = 0; // median of the points' best runs
};

// Consecutive points whose rates stay within `tolerance` (relative) of the
// median of the points gathered so far, at least `min_points` of them, in
// increasing working-set order. Points between plateaus (a level spilling
// into the next) belong to none.
std::vector<Plateau> find_plateaus(const std::vector<SweepPoint> &sweep, double tolerance = 0.12,
                                   size_t min_points = 3);

// "L1", "L2", "L3" or "DRAM": the smallest level that holds a working set of
// `working_set` bytes read by `threads` threads (L1 and L2 are per core, L3
// shared). A level the system does not report is skipped.
std::string memory_level(size_t working_set, int threads, const CacheSizes &caches);

struct MemoryLevelCeiling {
  std::string level;          // "L1", "L2", "L3", "DRAM"
  bool found = false;         // a plateau lies in this level
  Plateau plateau;            // when found: the longest plateau of the level
  size_t working_set_min = 0, working_set_max = 0;  // of the plateau's points
};

// One entry per level of the caches reported plus DRAM, in order; a level
// without a plateau has found = false.
std::vector<MemoryLevelCeiling> memory_level_ceilings(const std::vector<SweepPoint> &sweep,
                                                      const std::vector<Plateau> &plateaus,
                                                      int threads, const CacheSizes &caches);

// Working sets for the sweep: from 4 KiB per thread up to max_working_set, by
// steps of sqrt(2), whole pages per thread.
std::vector<size_t> sweep_working_sets(size_t max_working_set, int threads);

// Measures every working set of sweep_working_sets; progress(i, count) is
// called before point i.
std::vector<SweepPoint> measure_bandwidth_sweep(size_t max_working_set, int threads,
                                                const BandwidthOptions &options,
                                                const std::function<void(size_t, size_t)> &progress);

}  // namespace dlk::perf
