// A small SVG writer for log-log charts: axes with decade ticks and units, a
// grid, lines (ceilings, fits), marks (measured points) with optional labels,
// and a legend beside the plot. Self-contained SVG 1.1 that any browser shows;
// the text uses generic font families only.
#pragma once

#include <string>
#include <vector>

namespace dlk::perf {

struct XY {
  double x = 0, y = 0;
};

// Where a line's label is drawn on the plot (it is always in the legend too):
// at its right end, or along its first segment near the start (rotated with
// it: for the slanted memory ceilings of a roofline, which meet at the top).
enum class LineLabel { none, end, start };

struct ChartLine {
  std::string label;      // legend text, and on the plot where `placement` says
  std::string color;      // any SVG color, e.g. "#1f77b4"
  std::vector<XY> points; // drawn in order; points outside the axes are clipped
  bool dashed = false;
  LineLabel placement = LineLabel::end;
};

enum class MarkShape { circle, square, triangle, diamond };

struct ChartMark {
  XY at;
  std::string label;  // drawn beside the mark when not empty
};

struct ChartMarks {
  std::string label;  // legend text
  std::string color;
  MarkShape shape = MarkShape::circle;
  bool hollow = false;
  std::vector<ChartMark> marks;
};

struct LogLogChart {
  std::string title;
  std::string subtitle;  // one line under the title (machine, threads, date)
  std::string x_label;   // with unit, e.g. "arithmetic intensity (FLOP/byte)"
  std::string y_label;   // with unit, e.g. "GFLOP/s"
  std::vector<ChartLine> lines;
  std::vector<ChartMarks> marks;
  // Axis ranges; 0 means "from the data, widened to whole decades".
  double x_min = 0, x_max = 0, y_min = 0, y_max = 0;
};

// A chart with its titles and axis labels, nothing drawn yet.
LogLogChart log_log_chart(std::string title, std::string subtitle, std::string x_label, std::string y_label);

// What a chart's axes show per SI unit of its data: {8e-9, 1e3} draws bytes/s
// as Gbit/s against seconds as ms.
struct AxisScale {
  double x = 1, y = 1;
};

// A series of a chart: coloured by its index (chart_color), its points scaled
// to the axes. series_marks leaves out points that a log axis cannot show
// (a coordinate not > 0); marks carry no label.
ChartLine series_line(std::string label, size_t index, const std::vector<XY> &points, AxisScale scale = {},
                      bool dashed = false, LineLabel placement = LineLabel::end);
ChartMarks series_marks(std::string label, size_t index, const std::vector<XY> &points, AxisScale scale = {},
                        MarkShape shape = MarkShape::circle, bool hollow = false);

// Throws std::invalid_argument when there is nothing to draw or a value on a
// log axis is not > 0 (a line's or mark's coordinates).
std::string render_svg(const LogLogChart &chart, int width = 1000, int height = 620);

// Writes the SVG to `path`; throws std::runtime_error when it cannot.
void write_svg_file(const std::string &path, const std::string &svg);

// A colour per index, distinct for the first 10 (Tableau 10), cycling after.
const char *chart_color(size_t index);

// Text with &, <, >, " escaped for XML.
std::string xml_escape(const std::string &text);

// Tick label of a power of ten: 0.001 ... 10000 as plain numbers, else 1e-5, 1e6.
std::string decade_label(int exponent);

}  // namespace dlk::perf
