#include <catch2/catch.hpp>

#include <string>

#include "perf/charts/bandwidth_chart.hpp"
#include "perf/machine/machine_header.hpp"
#include "perf/charts/network_chart.hpp"
#include "perf/common/progress.hpp"
#include "perf/charts/roofline_chart.hpp"
#include "perf/charts/svg_chart.hpp"
#include "xml_well_formed.hpp"

using namespace dlk::perf;
using dlk::perf::test::xml_problem;

namespace {

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

MachineCeilings two_level_machine() {
  MachineCeilings m;
  m.cpu = "Test CPU";
  m.threads = 2;
  m.clock_hz = 3.5e9;
  m.compute.push_back({"f32", "avx512", "fma", 32, 230e9, {200e9, 150e9, 220e9, 9}});
  m.compute.push_back({"int8", "avx512", "vpdpbusd", 128, 900e9, {800e9, 700e9, 850e9, 9}});
  MemoryCeiling l1, dram;
  l1.level = "L1";
  l1.found = true;
  l1.bytes_per_second = 400e9;
  dram.level = "DRAM";
  dram.found = false;  // drawn, and said to have no plateau
  dram.bytes_per_second = 30e9;
  m.memory = {l1, dram};
  return m;
}

}  // namespace

TEST_CASE("decade labels are plain numbers near 1, powers beyond", "[perf][svg]") {
  CHECK(decade_label(0) == "1");
  CHECK(decade_label(3) == "1000");
  CHECK(decade_label(-2) == "0.01");
  CHECK(decade_label(6) == "1e6");
  CHECK(decade_label(-5) == "1e-5");
}

TEST_CASE("text is escaped for XML", "[perf][svg]") {
  CHECK(xml_escape("a<b & \"c\">") == "a&lt;b &amp; &quot;c&quot;&gt;");
}

TEST_CASE("the roofline chart has a ceiling per dtype and level, a mark per point", "[perf][svg]") {
  const std::vector<RooflineChartPoint> points{
      {"gemm f32 1024", "dlk cpu", false, false, 100, 150e9},
      {"gemm f32 1024", "openblas", true, false, 100, 200e9},
      {"gemm int8 256", "dlk fpga_sim", false, true, 50, 500e9},
      {"dropped: no rate", "dlk cpu", false, false, 1, 0}};
  const LogLogChart chart = roofline_chart(two_level_machine(), points, "Roofline <test>");
  CHECK(chart.lines.size() == 4);
  REQUIRE(chart.marks.size() == 3);
  CHECK(chart.marks[1].label == "peer: openblas");
  CHECK(chart.marks[1].hollow);
  CHECK(chart.marks[2].label == "dlk fpga_sim (simulated)");
  CHECK(chart.marks[2].marks[0].label.find("simulated") != std::string::npos);

  const std::string svg = render_svg(chart);
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(svg.find("Roofline &lt;test&gt;") != std::string::npos);
  CHECK(svg.find("arithmetic intensity (FLOP/byte") != std::string::npos);
  CHECK(svg.find("GFLOP/s") != std::string::npos);
  CHECK(svg.find("DRAM read 30 GB/s (no plateau)") != std::string::npos);
  CHECK(count(svg, "<polyline") == 4);
  // Three marks in the plot, three in the legend.
  CHECK(count(svg, "<circle") == 2);
  CHECK(count(svg, "<rect x=") >= 2);  // the peer's square(s) and the frame
  CHECK(count(svg, "<polygon") == 2);
  CHECK(count(svg, "<svg") == count(svg, "</svg>"));
  CHECK(count(svg, "<g ") == count(svg, "</g>"));
  CHECK(count(svg, "<text") == count(svg, "</text>"));
  CHECK(xml_problem(svg, "svg").empty());
}

TEST_CASE("the well-formedness check finds what a writer gets wrong", "[perf][svg]") {
  CHECK(xml_problem("<?xml version=\"1.0\"?>\n<svg a=\"1\"><g><text>x &amp; y</text></g><rect/></svg>\n", "svg")
            .empty());
  CHECK_FALSE(xml_problem("<svg><g></svg>", "svg").empty());              // not closed
  CHECK_FALSE(xml_problem("<svg><text>a & b</text></svg>", "svg").empty());  // bare &
  CHECK_FALSE(xml_problem("<svg><rect x=1/></svg>", "svg").empty());       // unquoted
  CHECK_FALSE(xml_problem("<svg></svg><svg></svg>", "svg").empty());       // two roots
  CHECK_FALSE(xml_problem("<html></html>", "svg").empty());
  CHECK_FALSE(xml_problem("<svg><text a=\"<\"></text></svg>", "svg").empty());
}

TEST_CASE("one roofline line per figure a backend reports; labels only while they stay readable", "[perf][svg]") {
  MachineCeilings accelerator;
  accelerator.cpu = "array";
  for (const char *dtype : {"f32", "bf16", "int8"})
    accelerator.compute.push_back({dtype, "systolic", "reported", 0, 2e12, {2e12, 2e12, 2e12, 0}});
  MemoryCeiling device;
  device.level = "device";
  device.found = true;
  device.bytes_per_second = 16e9;
  accelerator.memory.push_back(device);
  std::vector<RooflineChartPoint> points;
  for (size_t i = 0; i < kMaxMarkLabels; ++i) points.push_back({"layer", "dlk fpga_sim", false, true, 10.0 + i, 1e11});
  LogLogChart chart = roofline_chart(accelerator, points, "t");
  REQUIRE(chart.lines.size() == 2);
  CHECK(chart.lines[0].label == "f32, bf16, int8 peak 2000 G/s");
  CHECK(chart.subtitle.find("reported by the backend") != std::string::npos);
  CHECK(chart.marks[0].marks.back().label == "layer (simulated)");
  points.push_back({"one too many", "dlk fpga_sim", false, true, 30, 1e11});
  chart = roofline_chart(accelerator, points, "t");
  for (const ChartMark &m : chart.marks[0].marks) CHECK(m.label.empty());
  CHECK(chart.marks[0].label == "dlk fpga_sim (simulated)");
  CHECK(xml_problem(render_svg(chart), "svg").empty());
}

TEST_CASE("the bandwidth chart has a series per codec and operation under the read roof", "[perf][svg]") {
  const std::vector<BandwidthPoint> points{{"onebit", "encode", 2e6, 40e9, 90e9},
                                           {"onebit", "decode", 1e6, 80e9, 95e9},
                                           {"int8", "encode", 2e6, 30e9, 80e9},
                                           {"int8", "encode", 8e7, 20e9, 25e9},
                                           {"int8", "decode", 1e6, 0, 95e9}};  // no rate: not drawn
  const LogLogChart chart = bandwidth_chart(points, "Codecs", "1 thread");
  REQUIRE(chart.lines.size() == 1);
  // The roof at each working set, the best measured there, in order of size.
  REQUIRE(chart.lines[0].points.size() == 3);
  CHECK(chart.lines[0].points[0].x == 1e6);
  CHECK(chart.lines[0].points[1].y == Approx(90));
  REQUIRE(chart.marks.size() == 3);
  CHECK(chart.marks[0].label == "onebit encode");
  CHECK(chart.marks[0].color == chart.marks[1].color);  // a colour per codec
  CHECK(chart.marks[0].shape == chart.marks[2].shape);  // a shape per operation
  CHECK(chart.marks[0].shape != chart.marks[1].shape);
  CHECK(chart.marks[2].marks.size() == 2);
  const std::string svg = render_svg(chart);
  CHECK(xml_problem(svg, "svg").empty());
  CHECK(svg.find("working set (bytes)") != std::string::npos);
  CHECK(svg.find("GB/s") != std::string::npos);
}

TEST_CASE("a chart refuses values a log axis cannot show, and empty charts", "[perf][svg]") {
  LogLogChart chart;
  CHECK_THROWS_AS(render_svg(chart), std::invalid_argument);
  chart.lines.push_back({"bad", "black", {{1, 1}, {0, 2}}});
  CHECK_THROWS_AS(render_svg(chart), std::invalid_argument);
}

TEST_CASE("the network chart has marks and an alpha-beta line per algorithm", "[perf][svg]") {
  const std::vector<NetworkSeries> series{
      {"native", true, {{4096, 3e-6}, {1 << 20, 130e-6}}, 2e-6, 1.0 / 8e9},
      {"ring", false, {{4096, 5e-6}, {1 << 20, 150e-6}}, 4e-6, 1.0 / 7e9}};
  const LogLogChart chart = network_chart(series, "All-reduce", "2 ranks");
  REQUIRE(chart.lines.size() == 2);
  CHECK(chart.lines[0].dashed);
  CHECK(chart.lines[0].label == "native: 2.0 us, 8.00 GB/s");
  CHECK(chart.lines[0].points.front().y == Approx((2e-6 + 4096 / 8e9) * 1e6));
  CHECK(chart.marks[0].label == "peer: native");
  const std::string svg = render_svg(chart);
  CHECK(xml_problem(svg, "svg").empty());
  CHECK(svg.find("message size (bytes)") != std::string::npos);
  CHECK(svg.find("microseconds") != std::string::npos);
}

TEST_CASE("progress shows the time left only once it can be guessed", "[perf][progress]") {
  CHECK(time_left_text(10, 0.01).empty());
  CHECK(time_left_text(10, 0.5) == "0:10 left");
  CHECK(time_left_text(30, 0.25) == "1:30 left");
  CHECK(time_left_text(30, 1.0).empty());
  Progress hidden(false);  // never prints, whatever stderr is
  hidden.update("step", 0.5);
  hidden.finish();
}

TEST_CASE("the machine header names the CPU, threads, caches and versions", "[perf][header]") {
  MachineHeader h = machine_header(2, 3.5e9);
  h.add("mpi", "MPI", "none");
  const auto json = h.json();
  for (const char *key : {"cpu", "isa", "threads", "caches", "clock_hz", "versions", "mpi"})
    CHECK(json.contains(key));
  CHECK(json["threads"]["used"] == 2);
  const std::string text = h.text();
  CHECK(text.rfind("machine\n", 0) == 0);
  CHECK(text.find("3.50 GHz") != std::string::npos);
  CHECK(machine_header(1, 0).json().contains("clock_hz") == false);
}
