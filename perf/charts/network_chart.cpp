#include "perf/charts/network_chart.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace dlk::perf {

LogLogChart network_chart(const std::vector<NetworkSeries> &series, const std::string &title,
                          const std::string &subtitle) {
  LogLogChart chart;
  chart.title = title;
  chart.subtitle = subtitle;
  chart.x_label = "message size (bytes)";
  chart.y_label = "time per all-reduce (microseconds)";
  for (size_t i = 0; i < series.size(); ++i) {
    const NetworkSeries &s = series[i];
    const char *color = chart_color(i);
    ChartMarks marks;
    marks.label = s.peer ? "peer: " + s.algorithm : s.algorithm;
    marks.color = color;
    marks.shape = s.peer ? MarkShape::square : MarkShape::circle;
    marks.hollow = s.peer;
    double lo = 0, hi = 0;
    for (const XY &p : s.measured) {
      if (!(p.x > 0) || !(p.y > 0)) continue;
      marks.marks.push_back({{p.x, p.y * 1e6}, ""});
      lo = lo == 0 ? p.x : std::min(lo, p.x);
      hi = std::max(hi, p.x);
    }
    if (!marks.marks.empty()) chart.marks.push_back(marks);
    if ((s.alpha > 0 || s.beta > 0) && hi > 0) {
      ChartLine fit;
      // Short enough for the legend; the chart's subtitle says what the two figures are.
      fit.label = s.beta > 0 ? fmt::format("{}: {:.1f} us, {:.2f} GB/s", s.algorithm, s.alpha * 1e6, 1e-9 / s.beta)
                             : fmt::format("{}: {:.1f} us, no bytes term", s.algorithm, s.alpha * 1e6);
      fit.color = color;
      fit.dashed = true;
      fit.placement = LineLabel::none;
      // Enough points that the curve bends where alpha and beta * n cross.
      for (double n = lo; n <= hi * 1.0001; n *= 1.25) fit.points.push_back({n, (s.alpha + s.beta * n) * 1e6});
      chart.lines.push_back(fit);
    }
  }
  return chart;
}

}  // namespace dlk::perf
