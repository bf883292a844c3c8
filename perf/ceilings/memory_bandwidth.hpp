// Read bandwidth at a chosen working set: L1, L2, L3 or DRAM depending on the
// size given. Every thread reads its own contiguous share, which it wrote first
// (first touch places the pages near it), with the widest loads the CPU has.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "perf/common/stats.hpp"

namespace dlk::perf {

struct BandwidthOptions {
  int runs = 11;                 // timed runs after one warm-up run
  double seconds_per_run = 0.02; // each run reads the working set as often as this takes
};

struct BandwidthMeasurement {
  Summary bytes_per_second;  // over the runs
  size_t working_set = 0;    // bytes read per pass, all threads together
  std::string method;        // one line: loads, working set, threads, runs
};

// working_set_bytes is shared among the threads (rounded down to whole 4 KiB
// pages per thread, at least one). Throws std::bad_alloc when it cannot allocate.
BandwidthMeasurement measure_read_bandwidth(size_t working_set_bytes, int threads,
                                            const BandwidthOptions &options);

// One contiguous share per thread, each written first by its own thread, so a
// working-set sweep allocates and touches its largest size once and measures
// every smaller one in the first bytes of each share.
class ReadShares {
 public:
  // share_bytes is rounded down to whole 4 KiB pages, at least one.
  // Throws std::bad_alloc when it cannot allocate.
  ReadShares(size_t share_bytes, int threads);
  size_t share_bytes() const { return share_bytes_; }
  int threads() const { return threads_; }
  const char *share(int thread) const { return base_.get() + share_bytes_ * static_cast<size_t>(thread); }

 private:
  size_t share_bytes_;
  int threads_;
  std::unique_ptr<char, void (*)(void *)> base_;
};

// Every thread reads the first bytes_per_thread (rounded down to whole pages,
// at most share_bytes) of its share; the working set is that times the threads.
BandwidthMeasurement measure_read_bandwidth(const ReadShares &shares, size_t bytes_per_thread,
                                            const BandwidthOptions &options);

// The read loop with the widest loads this CPU has (kernels/perf_kernels.hpp),
// and the name of those loads: "zmm", "ymm" or "baseline".
struct ReadLoop {
  std::uint64_t (*run)(const void *data, size_t bytes);
  const char *loads;
};
ReadLoop widest_read_loop();

// Working set for DRAM: 8x the L3 this system reports, within [256 MiB, 1 GiB];
// 1 GiB when it reports none.
size_t dram_working_set(size_t l3_bytes);

}  // namespace dlk::perf
