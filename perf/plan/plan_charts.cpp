#include "perf/plan/plan_charts.hpp"

#include <algorithm>
#include <cmath>

#include "perf/plan/link_spec.hpp"

namespace dlk::perf {

LogLogChart step_time_chart(const std::vector<StepCurve> &curves, const std::string &title,
                            const std::string &subtitle) {
  LogLogChart c;
  c.title = title;
  c.subtitle = subtitle;
  c.x_label = "link bandwidth (Gbit/s)";
  c.y_label = "predicted step time (ms)";
  for (size_t i = 0; i < curves.size(); ++i) {
    ChartLine line;
    line.label = curves[i].algorithm;
    line.color = chart_color(i);
    line.dashed = curves[i].algorithm == "native";
    for (const XY &p : curves[i].points) line.points.push_back({p.x * 8e-9, p.y * 1e3});
    c.lines.push_back(std::move(line));
    ChartMarks marks;
    marks.label = curves[i].algorithm + " at the planned link";
    marks.color = chart_color(i);
    marks.marks.push_back({{curves[i].planned.x * 8e-9, curves[i].planned.y * 1e3}, ""});
    c.marks.push_back(std::move(marks));
  }
  return c;
}

LogLogChart step_roofline_chart(double compute_rate, const std::vector<RooflineLink> &links,
                                const std::vector<StepPoint> &points, const std::string &title,
                                const std::string &subtitle) {
  LogLogChart c;
  c.title = title;
  c.subtitle = subtitle;
  c.x_label = "FLOP per byte a rank puts on the wire";
  c.y_label = "attainable GFLOP/s of a rank";
  double x_min = 1e30, x_max = 0;
  for (const StepPoint &p : points)
    if (p.flop_per_wire_byte > 0) {
      x_min = std::min(x_min, p.flop_per_wire_byte);
      x_max = std::max(x_max, p.flop_per_wire_byte);
    }
  if (x_max == 0) x_min = x_max = 1;
  x_min = std::pow(10, std::floor(std::log10(x_min)) - 1);
  x_max = std::pow(10, std::ceil(std::log10(x_max)) + 1);
  c.x_min = x_min;
  c.x_max = x_max;
  const double y = compute_rate * 1e-9;
  c.lines.push_back({"compute roof (the step's compute alone)", "#222222", {{x_min, y}, {x_max, y}}, false,
                     LineLabel::end});
  for (size_t i = 0; i < links.size(); ++i) {
    // min(compute, bandwidth x intensity): the slanted part up to the ridge.
    const double b = links[i].bandwidth * 1e-9;
    const double ridge = std::clamp(y / b, x_min, x_max);
    c.lines.push_back({links[i].name + " (" + bandwidth_text(links[i].bandwidth) + ")", chart_color(i + 3),
                       {{x_min, b * x_min}, {ridge, b * ridge}}, true, LineLabel::start});
  }
  for (size_t i = 0; i < points.size(); ++i) {
    if (points[i].flop_per_wire_byte <= 0 || points[i].flop_per_second <= 0) continue;
    ChartMarks m;
    m.label = points[i].algorithm;
    m.color = chart_color(i);
    m.marks.push_back({{points[i].flop_per_wire_byte, points[i].flop_per_second * 1e-9}, points[i].algorithm});
    c.marks.push_back(std::move(m));
  }
  return c;
}

}  // namespace dlk::perf
