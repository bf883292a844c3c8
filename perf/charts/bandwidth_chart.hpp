// The memory roofline of work that does next to no arithmetic (the gradient
// codecs): bytes moved per second against the working set, log-log; one mark
// per point (a colour per series, a shape per operation), and the roof, the
// read bandwidth of a buffer as large as the working set, as a line through
// the roofs measured beside the points.
#pragma once

#include <string>
#include <vector>

#include "perf/charts/svg_chart.hpp"

namespace dlk::perf {

struct BandwidthPoint {
  std::string series;     // e.g. the codec: "onebit"
  std::string operation;  // e.g. "encode": one mark shape per distinct operation
  double working_set = 0; // bytes
  double rate = 0;        // bytes moved per second
  double roof = 0;        // read bytes per second of a buffer of working_set bytes; 0: none
};

// Rates are drawn in GB/s. The legend has one entry per series and operation,
// in the order they first appear.
LogLogChart bandwidth_chart(const std::vector<BandwidthPoint> &points, const std::string &title,
                            const std::string &subtitle);

}  // namespace dlk::perf
