// The network chart: time of one all-reduce against message size, log-log, one
// colour per algorithm: measured marks and its fitted alpha-beta line
// t = alpha + beta * bytes.
#pragma once

#include <string>
#include <vector>

#include "perf/charts/svg_chart.hpp"

namespace dlk::perf {

struct NetworkSeries {
  std::string algorithm;    // "native", "ring", "onebit", ...
  bool peer = false;        // MPI_Allreduce itself: hollow marks
  std::vector<XY> measured; // x: message bytes, y: seconds
  double alpha = 0;         // seconds; the line is drawn when alpha or beta > 0
  double beta = 0;          // seconds per byte
};

// Times are drawn in microseconds; each line's legend gives alpha and 1 / beta
// ("ring: 4.0 us, 7.00 GB/s"), which the subtitle should say are the fit's.
LogLogChart network_chart(const std::vector<NetworkSeries> &series, const std::string &title,
                          const std::string &subtitle);

}  // namespace dlk::perf
