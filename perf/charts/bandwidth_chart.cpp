#include "perf/charts/bandwidth_chart.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace dlk::perf {

LogLogChart bandwidth_chart(const std::vector<BandwidthPoint> &points, const std::string &title,
                            const std::string &subtitle) {
  LogLogChart chart;
  chart.title = title;
  chart.subtitle = subtitle;
  chart.x_label = "working set (bytes)";
  chart.y_label = "bytes moved per second (GB/s)";

  // The roof at each working set: the best of the roofs measured there.
  std::map<double, double> roof;
  for (const BandwidthPoint &p : points)
    if (p.working_set > 0 && p.roof > 0) roof[p.working_set] = std::max(roof[p.working_set], p.roof * 1e-9);
  if (!roof.empty()) {
    ChartLine line{"roof: read of a buffer that size", "#333", {}, true, LineLabel::none};
    for (const auto &[set, rate] : roof) line.points.push_back({set, rate});
    chart.lines.push_back(line);
  }

  const MarkShape shapes[] = {MarkShape::circle, MarkShape::triangle, MarkShape::diamond, MarkShape::square};
  std::map<std::string, size_t> colors, kinds;
  std::map<std::pair<std::string, std::string>, size_t> series;
  for (const BandwidthPoint &p : points) {
    if (!(p.working_set > 0) || !(p.rate > 0)) continue;
    const size_t color = colors.emplace(p.series, colors.size()).first->second;
    const size_t kind = kinds.emplace(p.operation, kinds.size()).first->second;
    auto it = series.find({p.series, p.operation});
    if (it == series.end()) {
      chart.marks.push_back({p.series + " " + p.operation, chart_color(color), shapes[kind % 4], false, {}});
      it = series.emplace(std::make_pair(p.series, p.operation), chart.marks.size() - 1).first;
    }
    chart.marks[it->second].marks.push_back({{p.working_set, p.rate * 1e-9}, ""});
  }
  return chart;
}

}  // namespace dlk::perf
