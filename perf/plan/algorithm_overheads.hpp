// `dlk-perf plan --algorithm-overhead`: the bucket overhead of single
// algorithms, each calibrated on a training run of its own
// (scripts/plan_check.py with more ranks than cores), as
// "onebit=0.0012,ring=-0.003" (seconds; see StepSetup::algorithm_overhead).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace dlk::perf {

// Each name one of plan_algorithms() but auto (whose buckets take the overhead
// of what they pick), at most once; each value a finite number of seconds in
// (-1000, 1000). Throws std::invalid_argument naming the part that is wrong.
std::map<std::string, double> parse_algorithm_overheads(std::string_view text);

}  // namespace dlk::perf
