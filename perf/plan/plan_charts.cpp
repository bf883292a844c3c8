#include "perf/plan/plan_charts.hpp"

#include <algorithm>
#include <cmath>

#include "perf/plan/link_spec.hpp"

namespace dlk::perf {

LogLogChart step_time_chart(const std::vector<StepCurve> &curves, const std::string &title,
                            const std::string &subtitle) {
  LogLogChart c = log_log_chart(title, subtitle, "link bandwidth (Gbit/s)", "predicted step time (ms)");
  const AxisScale gbit_ms{8e-9, 1e3};
  for (size_t i = 0; i < curves.size(); ++i) {
    const StepCurve &curve = curves[i];
    c.lines.push_back(series_line(curve.algorithm, i, curve.points, gbit_ms, curve.algorithm == "native"));
    c.marks.push_back(series_marks(curve.algorithm + " at the planned link", i, {curve.planned}, gbit_ms));
  }
  return c;
}

LogLogChart step_roofline_chart(double compute_rate, const std::vector<RooflineLink> &links,
                                const std::vector<StepPoint> &points, const std::string &title,
                                const std::string &subtitle) {
  LogLogChart c = log_log_chart(title, subtitle, "FLOP per byte a rank puts on the wire", "attainable GFLOP/s of a rank");
  const AxisScale gigaflops{1, 1e-9};
  double x_min = 1e30, x_max = 0;
  for (const StepPoint &p : points)
    if (p.flop_per_wire_byte > 0) {
      x_min = std::min(x_min, p.flop_per_wire_byte);
      x_max = std::max(x_max, p.flop_per_wire_byte);
    }
  if (x_max == 0) x_min = x_max = 1;
  c.x_min = std::pow(10, std::floor(std::log10(x_min)) - 1);
  c.x_max = std::pow(10, std::ceil(std::log10(x_max)) + 1);
  c.lines.push_back(series_line("compute roof (the step's compute alone)", 0,
                                {{c.x_min, compute_rate}, {c.x_max, compute_rate}}, gigaflops));
  c.lines.back().color = "#222222";
  for (size_t i = 0; i < links.size(); ++i) {
    // min(compute, bandwidth x intensity): the slanted part up to the ridge.
    const double b = links[i].bandwidth, ridge = std::clamp(compute_rate / b, c.x_min, c.x_max);
    c.lines.push_back(series_line(links[i].name + " (" + bandwidth_text(b) + ")", i + 3,
                                  {{c.x_min, b * c.x_min}, {ridge, b * ridge}}, gigaflops, true, LineLabel::start));
  }
  for (size_t i = 0; i < points.size(); ++i) {
    ChartMarks m = series_marks(points[i].algorithm, i, {{points[i].flop_per_wire_byte, points[i].flop_per_second}},
                                gigaflops);
    if (m.marks.empty()) continue;  // one rank: no wire bytes
    m.marks.front().label = points[i].algorithm;
    c.marks.push_back(std::move(m));
  }
  return c;
}

}  // namespace dlk::perf
