#include "perf/charts/network_chart.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace dlk::perf {

LogLogChart network_chart(const std::vector<NetworkSeries> &series, const std::string &title,
                          const std::string &subtitle) {
  LogLogChart chart = log_log_chart(title, subtitle, "message size (bytes)", "time per all-reduce (microseconds)");
  const AxisScale microseconds{1, 1e6};
  for (size_t i = 0; i < series.size(); ++i) {
    const NetworkSeries &s = series[i];
    ChartMarks marks = series_marks(s.peer ? "peer: " + s.algorithm : s.algorithm, i, s.measured, microseconds,
                                    s.peer ? MarkShape::square : MarkShape::circle, s.peer);
    if (marks.marks.empty()) continue;
    double lo = marks.marks.front().at.x, hi = lo;
    for (const ChartMark &m : marks.marks) {
      lo = std::min(lo, m.at.x);
      hi = std::max(hi, m.at.x);
    }
    chart.marks.push_back(std::move(marks));
    if (!(s.alpha > 0 || s.beta > 0)) continue;
    // Enough points that the curve bends where alpha and beta * n cross.
    std::vector<XY> fit;
    for (double n = lo; n <= hi * 1.0001; n *= 1.25) fit.push_back({n, s.alpha + s.beta * n});
    // Short enough for the legend; the chart's subtitle says what the two figures are.
    chart.lines.push_back(series_line(s.beta > 0 ? fmt::format("{}: {:.1f} us, {:.2f} GB/s", s.algorithm,
                                                               s.alpha * 1e6, 1e-9 / s.beta)
                                                 : fmt::format("{}: {:.1f} us, no bytes term", s.algorithm,
                                                               s.alpha * 1e6),
                                      i, fit, microseconds, true, LineLabel::none));
  }
  return chart;
}

}  // namespace dlk::perf
