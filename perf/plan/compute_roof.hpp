// The ceilings of a machine that is not here, as `dlk-perf plan --compute`
// gives them: "peak=<rate>,bandwidth=<rate>" (peak in FLOP/s, GFLOP/s,
// TFLOP/s; bandwidth in B/s, GB/s, TB/s), e.g. peak=19.5TFLOP/s,bandwidth=1.5TB/s.
#pragma once

#include <string>

namespace dlk::perf {

struct ComputeRoof {
  double peak = 0;       // FLOP/s
  double bandwidth = 0;  // bytes/s
};

// Throws std::invalid_argument naming the text and the form it must take.
ComputeRoof parse_compute_roof(const std::string &text);

}  // namespace dlk::perf
