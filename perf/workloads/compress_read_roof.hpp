// The roof of a `dlk-perf compress` point: perf's widest read loop over a buffer
// as large as the call's working set, timed as one more candidate in the same
// interleaved rounds as the calls, so that a neighbour who loads the machine for
// a while weighs on the roof and the calls alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "perf/ceilings/memory_bandwidth.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {

class ReadRoof {
 public:
  // Allocates and writes the buffer (rounded up to whole read granules).
  explicit ReadRoof(size_t working_set);

  // One read of the whole buffer.
  Candidate candidate(const std::string &name);
  // Bytes per second of one read that took `seconds`.
  double bandwidth(double seconds) const { return static_cast<double>(bytes_) / seconds; }

 private:
  struct Free {
    void operator()(char *p) const;
  };
  size_t bytes_;
  std::unique_ptr<char, Free> buffer_;
  ReadLoop loop_;
  std::uint64_t sink_ = 0;  // where the sums go, so that no read is dropped
};

}  // namespace dlk::perf
