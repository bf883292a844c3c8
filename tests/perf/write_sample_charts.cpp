// Writes the charts dlk-perf draws, from fixed sample figures, into the
// directory given: roofline.svg (ceilings per dtype and level, dlk points,
// peers, a simulated point), network.svg (all-reduce times with alpha-beta
// lines) and blank.svg (a white page of the same size, the reference a
// rendering must differ from). render_charts.sh renders them in Chromium.
#include <cstdio>
#include <exception>
#include <string>

#include "perf/network_chart.hpp"
#include "perf/roofline_chart.hpp"
#include "perf/svg_chart.hpp"

using namespace dlk::perf;

namespace {

MachineCeilings sample_machine() {
  MachineCeilings m;
  m.cpu = "AMD EPYC";
  m.microarchitecture = "Zen 4";
  m.threads = 2;
  m.clock_hz = 3.6e9;
  m.measured_at = "2026-11-22T20:00:00Z";
  m.compute = {{"f32", "avx512", "vfmadd231ps zmm", 32, 230e9, {200e9, 150e9, 226e9, 41}},
               {"f32", "avx2", "vfmadd231ps ymm", 32, 230e9, {200e9, 150e9, 224e9, 41}},
               {"bf16", "avx512", "vdpbf16ps zmm", 64, 460e9, {400e9, 300e9, 440e9, 41}},
               {"int8", "avx512", "vpdpbusd zmm", 128, 920e9, {800e9, 700e9, 870e9, 41}}};
  const char *levels[] = {"L1", "L2", "L3", "DRAM"};
  const double rates[] = {400e9, 210e9, 110e9, 35e9};
  for (int i = 0; i < 4; ++i) {
    MemoryCeiling c;
    c.level = levels[i];
    c.found = true;
    c.bytes_per_second = rates[i];
    m.memory.push_back(c);
  }
  return m;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIRECTORY\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  try {
    const std::vector<RooflineChartPoint> points{
        {"gemm f32 1024", "dlk cpu", false, false, 170, 190e9},
        {"gemm f32 1024", "openblas", true, false, 170, 205e9},
        {"gemm int8 1024", "dlk cpu", false, false, 340, 610e9},
        {"gemm int8 1024", "onednn", true, false, 340, 800e9},
        {"maxpool 2x2", "dlk cpu", false, false, 0.2, 5e9},
        {"gemm int8 512", "dlk fpga_sim", false, true, 120, 400e9}};
    write_svg_file(dir + "/roofline.svg", render_svg(roofline_chart(sample_machine(), points, "Roofline (sample figures)")));
    std::vector<NetworkSeries> series;
    const char *names[] = {"native", "ring", "onebit"};
    const double alpha[] = {3e-6, 6e-6, 20e-6}, beta[] = {1 / 8e9, 1 / 7e9, 1 / 60e9};
    for (int a = 0; a < 3; ++a) {
      NetworkSeries s{names[a], a == 0, {}, alpha[a], beta[a]};
      for (double n = 4096; n <= 256e6; n *= 4) s.measured.push_back({n, (alpha[a] + beta[a] * n) * (1.1 - 0.02 * a)});
      series.push_back(s);
    }
    write_svg_file(dir + "/network.svg",
                   render_svg(network_chart(series, "All-reduce, 2 ranks (sample figures)", "float32 sum")));
    write_svg_file(dir + "/blank.svg",
                   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
                   "width=\"1000\" height=\"620\"><rect width=\"100%\" height=\"100%\" fill=\"white\"/></svg>\n");
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
