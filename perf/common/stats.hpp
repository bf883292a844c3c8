// Order statistics of repeated measurements. Timings on a shared machine are
// skewed by interruptions, so reports use the median, with min and max for spread.
#pragma once

#include <vector>

namespace dlk::perf {

struct Summary {
  double median = 0;
  double min = 0;
  double max = 0;
  int count = 0;
};

// Median (mean of the middle two for an even count). Throws std::invalid_argument
// when samples is empty.
double median(std::vector<double> samples);

// Median, min, max and count. Throws std::invalid_argument when samples is empty.
Summary summarize(const std::vector<double> &samples);

}  // namespace dlk::perf
