#include "perf/charts/bandwidth_chart.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace dlk::perf {

LogLogChart bandwidth_chart(const std::vector<BandwidthPoint> &points, const std::string &title,
                            const std::string &subtitle) {
  LogLogChart chart = log_log_chart(title, subtitle, "working set (bytes)", "bytes moved per second (GB/s)");
  const AxisScale gigabytes{1, 1e-9};

  // The roof at each working set: the best of the roofs measured there.
  std::map<double, double> roof;
  for (const BandwidthPoint &p : points)
    if (p.working_set > 0 && p.roof > 0) roof[p.working_set] = std::max(roof[p.working_set], p.roof);
  if (!roof.empty()) {
    std::vector<XY> line;
    for (const auto &[set, rate] : roof) line.push_back({set, rate});
    chart.lines.push_back(series_line("roof: read of a buffer that size", 0, line, gigabytes, true, LineLabel::none));
    chart.lines.back().color = "#333";
  }

  // A colour per series, a shape per operation.
  const MarkShape shapes[] = {MarkShape::circle, MarkShape::triangle, MarkShape::diamond, MarkShape::square};
  std::map<std::string, size_t> colors, kinds;
  std::map<std::pair<std::string, std::string>, std::vector<XY>> series;
  std::vector<std::pair<std::string, std::string>> order;
  for (const BandwidthPoint &p : points) {
    colors.emplace(p.series, colors.size());
    kinds.emplace(p.operation, kinds.size());
    auto [it, added] = series.try_emplace({p.series, p.operation});
    if (added) order.push_back(it->first);
    it->second.push_back({p.working_set, p.rate});
  }
  for (const auto &key : order) {
    ChartMarks marks = series_marks(key.first + " " + key.second, colors[key.first], series[key], gigabytes,
                                    shapes[kinds[key.second] % 4]);
    if (!marks.marks.empty()) chart.marks.push_back(std::move(marks));
  }
  return chart;
}

}  // namespace dlk::perf
