#include "perf/common/stats.hpp"

#include <algorithm>
#include <stdexcept>

namespace dlk::perf {

double median(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("median of no samples");
  const size_t mid = samples.size() / 2;
  std::nth_element(samples.begin(), samples.begin() + mid, samples.end());
  const double upper = samples[mid];
  if (samples.size() % 2 == 1) return upper;
  const double lower = *std::max_element(samples.begin(), samples.begin() + mid);
  return lower + (upper - lower) / 2;
}

Summary summarize(const std::vector<double> &samples) {
  if (samples.empty()) throw std::invalid_argument("summary of no samples");
  const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
  return Summary{median(samples), *lo, *hi, static_cast<int>(samples.size())};
}

}  // namespace dlk::perf
