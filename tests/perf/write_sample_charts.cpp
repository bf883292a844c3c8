// Writes every kind of chart dlk-perf draws, from fixed sample figures, into
// the directory given: roofline.svg (ceilings per dtype and level, dlk points,
// peers, a simulated point), roofline_reported.svg (an accelerator's reported
// ceilings under its simulated points, as fpga_sim's charts draw them),
// network.svg (all-reduce times with alpha-beta lines), bandwidth.svg (codecs
// against the read roof of their working set) and blank.svg (a white page of
// the same size, the reference a rendering must differ from).
// render_charts.sh renders them in Chromium.
#include <cstdio>
#include <exception>
#include <string>

#include "perf/charts/bandwidth_chart.hpp"
#include "perf/charts/network_chart.hpp"
#include "perf/charts/roofline_chart.hpp"
#include "perf/charts/svg_chart.hpp"

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
    MachineCeilings accelerator;
    accelerator.cpu = "edge 32x32 systolic array (sample)";
    for (const char *dtype : {"f32", "bf16", "int8"})
      accelerator.compute.push_back({dtype, "systolic_32x32_os", "reported by the backend", 0, 2048e9,
                                     {2048e9, 2048e9, 2048e9, 0}});
    MemoryCeiling device;
    device.level = "device";
    device.found = true;
    device.bytes_per_second = 16e9;
    accelerator.memory.push_back(device);
    std::vector<RooflineChartPoint> layers;
    for (int i = 0; i < 20; ++i)  // more than kMaxMarkLabels: unlabelled
      layers.push_back({"layer", "dlk fpga_sim", false, true, 1.5 * (i + 1) * (i + 1), 15e9 * (i + 1)});
    write_svg_file(dir + "/roofline_reported.svg",
                   render_svg(roofline_chart(accelerator, layers, "Simulated layers (sample figures)")));
    std::vector<BandwidthPoint> codecs;
    for (double mib : {1.0, 4.0, 16.0, 64.0})
      for (const char *codec : {"onebit", "int8"})
        for (const char *op : {"encode", "decode", "decode_add"}) {
          const double set = mib * (1 << 20) * (op[0] == 'e' ? 2.2 : 1.1), roof = mib > 8 ? 30e9 : 90e9;
          codecs.push_back({codec, op, set, roof * (op[0] == 'e' ? 0.4 : 0.9), roof});
        }
    write_svg_file(dir + "/bandwidth.svg",
                   render_svg(bandwidth_chart(codecs, "Codecs (sample figures)", "1 thread")));
    write_svg_file(dir + "/blank.svg",
                   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
                   "width=\"1000\" height=\"620\"><rect width=\"100%\" height=\"100%\" fill=\"white\"/></svg>\n");
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
