#include "perf/charts/roofline_chart.hpp"

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
  const bool measured = ceilings.clock_hz > 0;  // else figures a backend reports about itself
  chart.subtitle = measured ? fmt::format("{} ({}), {} thread{}, clock ~{:.2f} GHz; ceilings measured {}",
                                          ceilings.cpu, ceilings.microarchitecture, ceilings.threads,
                                          ceilings.threads == 1 ? "" : "s", ceilings.clock_hz * 1e-9,
                                          ceilings.measured_at)
                            : fmt::format("{}; ceilings reported by the backend", ceilings.cpu);
  chart.x_label = "arithmetic intensity (FLOP/byte; OP/byte for int8)";
  chart.y_label = "GFLOP/s (GOP/s for int8)";
  chart.x_min = 0.01;
  chart.x_max = 1000;

  double top = 0, fastest_memory = 0;
  for (const ComputeCeiling &c : ceilings.compute) top = std::max(top, c.value());
  for (const MemoryCeiling &m : ceilings.memory)
    if (m.bytes_per_second > 0) fastest_memory = std::max(fastest_memory, m.bytes_per_second);

  // One line per figure: dtypes of the same ISA tier and peak (an accelerator
  // that reports one figure for every dtype) share it. The tier is named only
  // where there are several.
  struct Peak {
    std::string dtypes, isa;
    double value;
  };
  std::vector<Peak> peaks;
  bool tiers = false;
  for (const ComputeCeiling &c : ceilings.compute) {
    tiers = tiers || c.isa != ceilings.compute.front().isa;
    auto same = std::find_if(peaks.begin(), peaks.end(),
                             [&](const Peak &p) { return p.isa == c.isa && p.value == c.value(); });
    if (same == peaks.end())
      peaks.push_back({c.dtype, c.isa, c.value()});
    else
      same->dtypes += ", " + c.dtype;
  }
  size_t color = 0;
  const std::string widest = ceilings.compute.front().isa;  // peak_loops' order: widest first
  for (const Peak &c : peaks) {
    // From where the fastest memory level meets it, to the right edge.
    const double from = fastest_memory > 0 ? std::max(chart.x_min, c.value / fastest_memory) : chart.x_min;
    const char *unit = c.dtypes == "int8" ? "GOP/s" : c.dtypes.find("int8") != std::string::npos ? "G/s" : "GFLOP/s";
    chart.lines.push_back({fmt::format("{}{}{} peak {:.0f} {}", c.dtypes, tiers ? " " : "", tiers ? c.isa : "",
                                       c.value * 1e-9, unit),
                           chart_color(color++), {{from, c.value * 1e-9}, {chart.x_max, c.value * 1e-9}},
                           c.isa != widest,
                           // Lower tiers of a dtype lie close below it: legend only.
                           c.isa == widest || c.dtypes != "f32" ? LineLabel::end : LineLabel::none});
  }
  for (const MemoryCeiling &m : ceilings.memory) {
    if (!(m.bytes_per_second > 0)) continue;
    // From the left edge up to the highest compute ceiling.
    const double bw = m.bytes_per_second;
    chart.lines.push_back({fmt::format("{} read {:.0f} GB/s{}", m.level, bw * 1e-9, m.found || m.level == "device" ? "" : " (no plateau)"), chart_color(color++),
                           {{chart.x_min, chart.x_min * bw * 1e-9}, {top / bw, top * 1e-9}}, false,
                           LineLabel::start});
  }

  // Beyond a dozen labels they overlap into a smudge: the legend and the
  // subcommand's table then tell the points apart.
  size_t labelled = 0;
  for (const RooflineChartPoint &p : points) labelled += p.peer ? 0 : 1;
  const bool labels = labelled <= kMaxMarkLabels;
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
        {{p.intensity, p.rate * 1e-9}, !labels || p.peer ? "" : p.simulated ? p.label + " (simulated)" : p.label});
  }
  return chart;
}

}  // namespace dlk::perf
