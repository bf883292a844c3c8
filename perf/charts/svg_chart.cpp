#include "perf/charts/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace dlk::perf {
namespace {

constexpr double kLegendWidth = 320;  // right of the plot
constexpr double kLeft = 80, kTop = 70, kBottom = 60;

struct Axis {
  int lo = 0, hi = 1;  // decades
  double from = 0, to = 0;  // pixels
  double map(double v) const {
    return from + (std::log10(v) - lo) / static_cast<double>(hi - lo) * (to - from);
  }
};

void widen(double &lo, double &hi, double v) {
  if (!(v > 0) || !std::isfinite(v))
    throw std::invalid_argument(fmt::format("chart value {} cannot go on a log axis", v));
  lo = std::min(lo, v);
  hi = std::max(hi, v);
}

Axis axis(double data_lo, double data_hi, double given_lo, double given_hi, double from, double to) {
  Axis a;
  a.lo = static_cast<int>(std::floor(std::log10(given_lo > 0 ? given_lo : data_lo) + 1e-9));
  a.hi = static_cast<int>(std::ceil(std::log10(given_hi > 0 ? given_hi : data_hi) - 1e-9));
  if (a.hi <= a.lo) a.hi = a.lo + 1;
  a.from = from;
  a.to = to;
  return a;
}

std::string mark_svg(MarkShape shape, double x, double y, const std::string &color, bool hollow) {
  const std::string paint = hollow ? fmt::format("fill=\"white\" stroke=\"{}\" stroke-width=\"2\"", color)
                                   : fmt::format("fill=\"{}\" stroke=\"black\" stroke-width=\"0.6\"", color);
  const double r = 5.5;
  switch (shape) {
    case MarkShape::square:
      return fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" {}/>", x - r,
                         y - r, 2 * r, 2 * r, paint);
    case MarkShape::triangle:
      return fmt::format("<polygon points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" {}/>", x, y - r * 1.2,
                         x - r * 1.1, y + r * 0.9, x + r * 1.1, y + r * 0.9, paint);
    case MarkShape::diamond:
      return fmt::format("<polygon points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" {}/>", x,
                         y - r * 1.3, x + r * 1.3, y, x, y + r * 1.3, x - r * 1.3, y, paint);
    case MarkShape::circle: break;
  }
  return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" {}/>", x, y, r, paint);
}

}  // namespace

std::string xml_escape(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string decade_label(int exponent) {
  if (exponent >= 0 && exponent <= 4) return fmt::format("{}", static_cast<long>(std::pow(10, exponent)));
  if (exponent < 0 && exponent >= -3) return fmt::format("{:.{}f}", std::pow(10, exponent), -exponent);
  return fmt::format("1e{}", exponent);
}

LogLogChart log_log_chart(std::string title, std::string subtitle, std::string x_label, std::string y_label) {
  LogLogChart chart;
  chart.title = std::move(title);
  chart.subtitle = std::move(subtitle);
  chart.x_label = std::move(x_label);
  chart.y_label = std::move(y_label);
  return chart;
}

ChartLine series_line(std::string label, size_t index, const std::vector<XY> &points, AxisScale scale,
                      bool dashed, LineLabel placement) {
  ChartLine line{std::move(label), chart_color(index), {}, dashed, placement};
  for (const XY &p : points) line.points.push_back({p.x * scale.x, p.y * scale.y});
  return line;
}

ChartMarks series_marks(std::string label, size_t index, const std::vector<XY> &points, AxisScale scale,
                        MarkShape shape, bool hollow) {
  ChartMarks marks{std::move(label), chart_color(index), shape, hollow, {}};
  for (const XY &p : points)
    if (p.x > 0 && p.y > 0) marks.marks.push_back({{p.x * scale.x, p.y * scale.y}, ""});
  return marks;
}

const char *chart_color(size_t index) {
  static const char *const colors[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                       "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#79706e"};
  return colors[index % 10];
}

std::string render_svg(const LogLogChart &chart, int width, int height) {
  double xlo = std::numeric_limits<double>::infinity(), xhi = 0;
  double ylo = std::numeric_limits<double>::infinity(), yhi = 0;
  for (const ChartLine &l : chart.lines)
    for (const XY &p : l.points) widen(xlo, xhi, p.x), widen(ylo, yhi, p.y);
  for (const ChartMarks &m : chart.marks)
    for (const ChartMark &k : m.marks) widen(xlo, xhi, k.at.x), widen(ylo, yhi, k.at.y);
  if (xhi == 0) throw std::invalid_argument("a chart needs at least one line or mark");

  const double plot_right = width - kLegendWidth, plot_bottom = height - kBottom;
  const Axis ax = axis(xlo, xhi, chart.x_min, chart.x_max, kLeft, plot_right);
  const Axis ay = axis(ylo, yhi, chart.y_min, chart.y_max, plot_bottom, kTop);

  std::string s = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\" font-size=\"13\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<defs><clipPath id=\"plot\"><rect x=\"{2}\" y=\"{3}\" width=\"{4:.1f}\" height=\"{5:.1f}\"/>"
      "</clipPath></defs>\n",
      width, height, kLeft, kTop, plot_right - kLeft, plot_bottom - kTop);
  s += fmt::format("<text x=\"{}\" y=\"28\" font-size=\"18\" font-weight=\"bold\">{}</text>\n", kLeft,
                   xml_escape(chart.title));
  if (!chart.subtitle.empty())
    s += fmt::format("<text x=\"{}\" y=\"50\" fill=\"#555\">{}</text>\n", kLeft, xml_escape(chart.subtitle));

  // Grid: decades dark, 2..9 light; tick labels at decades.
  for (int e = ax.lo; e <= ax.hi; ++e) {
    for (int m = 1; m <= (e < ax.hi ? 9 : 1); ++m) {
      const double x = ax.map(m * std::pow(10, e));
      s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"{3}\"/>\n", x, kTop,
                       plot_bottom, m == 1 ? "#bbb" : "#eee");
    }
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", ax.map(std::pow(10, e)),
                     plot_bottom + 18, decade_label(e));
  }
  for (int e = ay.lo; e <= ay.hi; ++e) {
    for (int m = 1; m <= (e < ay.hi ? 9 : 1); ++m) {
      const double y = ay.map(m * std::pow(10, e));
      s += fmt::format("<line x1=\"{1}\" y1=\"{0:.1f}\" x2=\"{2:.1f}\" y2=\"{0:.1f}\" stroke=\"{3}\"/>\n", y, kLeft,
                       plot_right, m == 1 ? "#bbb" : "#eee");
    }
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", kLeft - 6,
                     ay.map(std::pow(10, e)) + 4, decade_label(e));
  }
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"black\"/>\n",
                   kLeft, kTop, plot_right - kLeft, plot_bottom - kTop);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n",
                   (kLeft + plot_right) / 2, static_cast<double>(height) - 16, xml_escape(chart.x_label));
  s += fmt::format(
      "<text transform=\"translate(22,{:.1f}) rotate(-90)\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n",
      (kTop + plot_bottom) / 2, xml_escape(chart.y_label));

  s += "<g clip-path=\"url(#plot)\">\n";
  for (const ChartLine &l : chart.lines) {
    std::string pts;
    for (const XY &p : l.points) pts += fmt::format("{:.1f},{:.1f} ", ax.map(p.x), ay.map(p.y));
    s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.2\"{}/>\n", pts,
                     l.color, l.dashed ? " stroke-dasharray=\"7,4\"" : "");
  }
  for (const ChartMarks &m : chart.marks)
    for (const ChartMark &k : m.marks) s += mark_svg(m.shape, ax.map(k.at.x), ay.map(k.at.y), m.color, m.hollow) + "\n";
  s += "</g>\n";
  // Mark labels outside the clip, to the left of marks near the right edge.
  for (const ChartMarks &m : chart.marks)
    for (const ChartMark &k : m.marks) {
      const double x = ax.map(k.at.x), y = ay.map(k.at.y);
      if (k.label.empty() || x < kLeft || x > plot_right || y < kTop || y > plot_bottom) continue;
      const bool left = x > plot_right - 130;
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\" font-size=\"11\" fill=\"#222\">{}</text>\n",
                       left ? x - 9 : x + 9, y + 14, left ? "end" : "start", xml_escape(k.label));
    }
  // Line labels on the plot, above the line.
  for (const ChartLine &l : chart.lines) {
    if (l.placement == LineLabel::none || l.points.empty()) continue;
    if (l.placement == LineLabel::end) {
      const XY &end = l.points.back();
      const double x = std::min(ax.map(end.x), plot_right) - 4;
      double y = ay.map(end.y) - 5;
      if (y < kTop + 12) y += 18;  // no room above: below the line
      if (y > plot_bottom) continue;
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" font-size=\"11\" fill=\"{}\">{}</text>\n",
                       x, y, l.color, xml_escape(l.label));
    } else if (l.points.size() >= 2) {
      const double x0 = ax.map(l.points[0].x), y0 = ay.map(l.points[0].y);
      const double x1 = ax.map(l.points[1].x), y1 = ay.map(l.points[1].y);
      const double length = std::hypot(x1 - x0, y1 - y0);
      if (length < 1) continue;
      // 60 px along the line from where it enters the plot.
      const double x = x0 + 60 * (x1 - x0) / length, y = y0 + 60 * (y1 - y0) / length;
      if (x < kLeft || x > plot_right || y < kTop + 10 || y > plot_bottom - 4) continue;
      const double angle = std::atan2(y1 - y0, x1 - x0) * 180 / M_PI;
      s += fmt::format("<text transform=\"translate({:.1f},{:.1f}) rotate({:.1f})\" dy=\"-5\" font-size=\"11\" "
                       "fill=\"{}\">{}</text>\n",
                       x, y, angle, l.color, xml_escape(l.label));
    }
  }

  // Legend: lines, then mark series.
  double ly = kTop + 8;
  const double lx = plot_right + 20;
  for (const ChartLine &l : chart.lines) {
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2.2\"{}/>\n",
                     lx, ly, lx + 28, ly, l.color, l.dashed ? " stroke-dasharray=\"7,4\"" : "");
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", lx + 36, ly + 4, xml_escape(l.label));
    ly += 20;
  }
  ly += 6;
  for (const ChartMarks &m : chart.marks) {
    s += mark_svg(m.shape, lx + 14, ly, m.color, m.hollow) + "\n";
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", lx + 36, ly + 4, xml_escape(m.label));
    ly += 20;
  }
  s += "</svg>\n";
  return s;
}

void write_svg_file(const std::string &path, const std::string &svg) {
  std::ofstream out(path, std::ios::trunc);
  out << svg;
  if (!out.flush()) throw std::runtime_error("cannot write " + path);
}

}  // namespace dlk::perf
