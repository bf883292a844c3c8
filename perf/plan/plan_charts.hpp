// The two charts of `dlk-perf plan`:
//   step time against link bandwidth: one line per algorithm (its predicted
//   step at each bandwidth, latency held), a mark where the planned link is;
//   the compute x network roofline of the step: attainable FLOP/s of a rank
//   against FLOP per byte it puts on the wire, the compute roof (the step's
//   FLOPs over its compute time) and one slanted roof per link (bandwidth x
//   intensity); one mark per algorithm at its intensity and predicted rate.
#pragma once

#include <string>
#include <vector>

#include "perf/charts/svg_chart.hpp"

namespace dlk::perf {

struct StepCurve {
  std::string algorithm;
  std::vector<XY> points;  // x: link bandwidth (bytes/s), y: step seconds
  XY planned;              // at the planned link
};

LogLogChart step_time_chart(const std::vector<StepCurve> &curves, const std::string &title,
                            const std::string &subtitle);

struct RooflineLink {
  std::string name;
  double bandwidth = 0;  // bytes/s
};

struct StepPoint {
  std::string algorithm;
  double flop_per_wire_byte = 0;
  double flop_per_second = 0;
};

// compute_rate: FLOP/s of the step's compute alone. Points with no wire bytes
// (one rank) are left out.
LogLogChart step_roofline_chart(double compute_rate, const std::vector<RooflineLink> &links,
                                const std::vector<StepPoint> &points, const std::string &title,
                                const std::string &subtitle);

}  // namespace dlk::perf
