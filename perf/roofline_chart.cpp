#include "perf/roofline_chart.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace dlk::perf {

LogLogChart roofline_chart(const MachineCeilings &ceilings,
                           const std::vector<RooflineChartPoint> &points, const std::string &title) {
  if (ceilings.compute.empty()) throw std::invalid_argument("roofline chart: no compute ceiling");
  LogLogChart chart;
  chart.title = title;
  chart.subtitle = fmt::format("{} ({}), {} thread{}, clock ~{:.2f} GHz; ceilings measured {}", ceilings.cpu,
                               ceilings.microarchitecture, ceilings.threads,
                               ceilings.threads == 1 ? "" : "s", ceilings.clock_hz * 1e-9,
                               ceilings.measured_at);
  chart.x_label = "arithmetic intensity (FLOP/byte; OP/byte for int8)";
  chart.y_label = "GFLOP/s (GOP/s for int8)";
  chart.x_min = 0.01;
  chart.x_max = 1000;

  double top = 0, fastest_memory = 0;
  for (const ComputeCeiling &c : ceilings.compute) top = std::max(top, c.value());
  for (const MemoryCeiling &m : ceilings.memory)
    if (m.bytes_per_second > 0) fastest_memory = std::max(fastest_memory, m.bytes_per_second);

  size_t color = 0;
  const std::string widest = ceilings.compute.front().isa;  // peak_loops' order: widest first
  for (const ComputeCeiling &c : ceilings.compute) {
    // From where the fastest memory level meets it, to the right edge.
    const double from = fastest_memory > 0 ? std::max(chart.x_min, c.value() / fastest_memory) : chart.x_min;
    chart.lines.push_back({fmt::format("{} {} peak {:.0f} G{}/s", c.dtype, c.isa, c.value() * 1e-9,
                                       c.dtype == "int8" ? "OP" : "FLOP"),
                           chart_color(color++), {{from, c.value() * 1e-9}, {chart.x_max, c.value() * 1e-9}},
                           c.isa != widest,
                           // Lower tiers of a dtype lie close below it: legend only.
                           c.isa == widest || c.dtype != "f32" ? LineLabel::end : LineLabel::none});
  }
  for (const MemoryCeiling &m : ceilings.memory) {
    if (!(m.bytes_per_second > 0)) continue;
    // From the left edge up to the highest compute ceiling.
    const double bw = m.bytes_per_second;
    chart.lines.push_back({fmt::format("{} read {:.0f} GB/s{}", m.level, bw * 1e-9, m.found || m.level == "device" ? "" : " (no plateau)"), chart_color(color++),
                           {{chart.x_min, chart.x_min * bw * 1e-9}, {top / bw, top * 1e-9}}, false,
                           LineLabel::start});
  }

  std::map<std::string, size_t> series;
  for (const RooflineChartPoint &p : points) {
    if (!(p.intensity > 0) || !(p.rate > 0)) continue;
    auto it = series.find(p.implementation);
    if (it == series.end()) {
      ChartMarks marks;
      marks.label = p.simulated ? p.implementation + " (simulated)"
                    : p.peer    ? "peer: " + p.implementation
                                : p.implementation;
      marks.color = chart_color(color++);
      marks.shape = p.simulated ? MarkShape::triangle : p.peer ? MarkShape::square : MarkShape::circle;
      marks.hollow = p.peer;
      chart.marks.push_back(marks);
      it = series.emplace(p.implementation, chart.marks.size() - 1).first;
    }
    // A peer's point sits beside dlk's at the same intensity: the legend names it.
    chart.marks[it->second].marks.push_back(
        {{p.intensity, p.rate * 1e-9}, p.simulated ? p.label + " (simulated)" : p.peer ? "" : p.label});
  }
  return chart;
}

}  // namespace dlk::perf
