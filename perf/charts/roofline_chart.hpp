// The roofline as a chart: one horizontal ceiling per dtype and ISA tier, one
// slanted ceiling per memory level, one mark per measured point; dlk's points
// filled, peers' hollow, simulated points as triangles in a series of their own.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "perf/ceilings/machine_ceilings.hpp"
#include "perf/charts/svg_chart.hpp"

namespace dlk::perf {

struct RooflineChartPoint {
  std::string label;     // beside the mark, e.g. "gemm f32 1024"
  std::string implementation;  // series: "dlk cpu", "openblas", "dlk fpga_sim"
  bool peer = false;
  bool simulated = false;
  double intensity = 0;  // FLOP/byte (OP/byte for int8)
  double rate = 0;       // FLOP/s
};

// dlk's marks are labelled when there are at most this many of them.
inline constexpr size_t kMaxMarkLabels = 12;

// Rates are drawn in G/s. Throws std::invalid_argument when the ceilings have
// no compute figure.
LogLogChart roofline_chart(const MachineCeilings &ceilings,
                           const std::vector<RooflineChartPoint> &points, const std::string &title);

}  // namespace dlk::perf
