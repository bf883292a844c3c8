// `dlk-perf resnet50`: an int8 ResNet-50 forward pass at batch 1 (u8
// activations, s8 weights, per-channel scales, u8 outputs requantized with bias
// and ReLU), timed on the host; on fpga_sim also the accelerator's simulated
// time summed over the layers. The CPU backend runs the same pass, alternating
// with it, as the peer its host time is compared with.
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "dlk/dlk.hpp"
#include "perf/context_options.hpp"
#include "perf/resnet50_layers.hpp"
#include "perf/stats.hpp"
#include "perf/subcommand.hpp"
#include "perf/timing.hpp"

namespace dlk::perf {
namespace {

struct ResnetOptions {
  ContextOptions context;
  int passes = 5;
  bool layers = false;
};

// What one layer did on the simulated accelerator.
struct LayerSim {
  std::string name;
  double macs = 0, cycles = 0, seconds = 0, utilization = 0, dram_bytes = 0;
  bool dram_bound = false;
};

// Operands big enough for any layer; their values only need to be plausible.
struct Buffers {
  std::vector<uint8_t> activations, output;
  std::vector<int8_t> weights;
  std::vector<float> bias, scales, logits;
  Buffers() {
    std::mt19937 rng(1);
    activations.resize(64 * 112 * 112);
    output.resize(activations.size());
    weights.resize(512 * 512 * 9);
    for (auto &a : activations) a = static_cast<uint8_t>(rng() & 0xff);
    for (auto &w : weights) w = static_cast<int8_t>(rng() & 0xff);
    bias.assign(2048, 1.0f);
    scales.assign(2048, 1.0f / 4096);
    logits.resize(1000);
  }
};

// CPU time of the whole process: on a machine shared with other jobs, wall time
// also counts the time this process waited for a core.
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

void check(dlk_status status) {
  if (status != DLK_STATUS_SUCCESS) throw std::runtime_error(dlk_last_error());
}

void run_layer(dlk_context_t ctx, const ResnetLayer &l, Buffers &b) {
  switch (l.kind) {
    case ResnetLayer::Kind::conv: {
      dlk_conv2d_desc d;
      dlk_conv2d_desc_init(&d, DLK_DTYPE_U8, 1, l.c, l.h, l.w, l.k, l.kernel, l.kernel);
      d.weights_type = DLK_DTYPE_S8;
      d.stride_h = d.stride_w = l.stride;
      d.pad_h = d.pad_w = l.pad;
      d.relu = 1;
      d.scale_mode = DLK_SCALE_PER_CHANNEL;
      d.scales = b.scales.data();
      return check(dlk_conv2d_forward(ctx, &d, b.activations.data(), b.weights.data(),
                                      b.bias.data(), b.output.data()));
    }
    case ResnetLayer::Kind::max_pool:
    case ResnetLayer::Kind::avg_pool: {
      dlk_pool2d_desc d;
      dlk_pool2d_desc_init(&d,
                           l.kind == ResnetLayer::Kind::max_pool ? DLK_POOL_MAX
                                                                 : DLK_POOL_AVG_EXCLUDE_PADDING,
                           DLK_DTYPE_U8, 1, l.c, l.h, l.w, l.kernel, l.kernel);
      d.stride_h = d.stride_w = l.stride;
      d.pad_h = d.pad_w = l.pad;
      return check(dlk_pool2d_forward(ctx, &d, b.activations.data(), b.output.data(), nullptr));
    }
    case ResnetLayer::Kind::fully_connected: {
      dlk_gemm_desc d;
      dlk_gemm_desc_init(&d, DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_F32, 1, l.k, l.c);
      d.scale_mode = DLK_SCALE_PER_CHANNEL;
      d.scales = b.scales.data();
      return check(dlk_gemm(ctx, &d, b.activations.data(), b.weights.data(), b.logits.data()));
    }
  }
}

// One pass; per-layer simulated records when the context simulates.
std::vector<LayerSim> run_pass(dlk::Context &context, const std::vector<ResnetLayer> &layers,
                               Buffers &b, bool simulated) {
  std::vector<LayerSim> sims;
  for (const ResnetLayer &l : layers) {
    run_layer(context.get(), l, b);
    if (!simulated) continue;
    const dlk_sim_record r = context.last_sim();
    sims.push_back({l.name, r.macs, r.cycles, r.seconds, r.mac_utilization,
                    r.dram_bytes_read + r.dram_bytes_written, r.dram_bound != 0});
  }
  return sims;
}

int run_resnet50(const ResnetOptions &o) {
  dlk::Context target(o.context.to_dlk());
  ContextOptions cpu_options = o.context;
  cpu_options.backend = "cpu";
  dlk::Context cpu(cpu_options.to_dlk());
  const dlk_context_info info = target.info();
  const bool simulated = std::string(info.backend) == "fpga_sim";
  const std::vector<ResnetLayer> layers = resnet50_layers();
  Buffers buffers;

  // One untimed pass each, then passes alternating between the two backends.
  std::vector<LayerSim> sims = run_pass(target, layers, buffers, simulated);
  run_pass(cpu, layers, buffers, false);
  std::vector<double> target_seconds, cpu_seconds, target_cpu_time, cpu_cpu_time;
  const auto timed = [&](dlk::Context &context, std::vector<double> &wall,
                         std::vector<double> &cpu_time) {
    const double start = now_seconds(), start_cpu = process_cpu_seconds();
    run_pass(context, layers, buffers, false);
    wall.push_back(now_seconds() - start);
    cpu_time.push_back(process_cpu_seconds() - start_cpu);
  };
  for (int p = 0; p < o.passes; ++p) {
    timed(target, target_seconds, target_cpu_time);
    timed(cpu, cpu_seconds, cpu_cpu_time);
  }
  const Summary t = summarize(target_seconds), c = summarize(cpu_seconds);
  const Summary tc = summarize(target_cpu_time), cc = summarize(cpu_cpu_time);

  fmt::print("dlk-perf resnet50: int8 ResNet-50 v1.5 forward, batch 1, 224x224 ({} ops: 53 conv, "
             "2 pool, 1 fc; residual adds left out)\n",
             layers.size());
  fmt::print("backend {} ({}), {} threads; peer: cpu ({} threads), passes alternating\n",
             info.backend, info.device, info.num_threads, cpu.info().num_threads);
  fmt::print("host time per pass: {} median {:.3f} s (min {:.3f}), cpu median {:.3f} s (min "
             "{:.3f}); {} / cpu = {:.2f}, over {} passes\n",
             info.backend, t.median, t.min, c.median, c.min, info.backend, t.median / c.median,
             o.passes);
  fmt::print("process CPU time per pass: {} median {:.3f} s, cpu median {:.3f} s; {} / cpu = "
             "{:.2f}\n",
             info.backend, tc.median, cc.median, info.backend, tc.median / cc.median);
  if (!simulated) return 0;
  double macs = 0, cycles = 0, seconds = 0, dram = 0;
  int dram_bound = 0;
  for (const LayerSim &s : sims) {
    macs += s.macs, cycles += s.cycles, seconds += s.seconds, dram += s.dram_bytes;
    dram_bound += s.dram_bound ? 1 : 0;
  }
  fmt::print("simulated: {:.3f} ms ({:.0f} cycles), {:.2f} GMAC, MAC utilization {:.1f} %, DRAM "
             "{:.1f} MB, {} of {} ops DRAM bound\n",
             seconds * 1e3, cycles, macs * 1e-9,
             100 * macs / (info.peak_int8_ops / 2 * seconds), dram * 1e-6,
             dram_bound, sims.size());
  if (o.layers) {
    fmt::print("\n{:<12} {:>10} {:>12} {:>10} {:>6} {:>10} {}\n", "layer", "MMAC", "cycles", "us",
               "util%", "DRAM MB", "bound");
    for (const LayerSim &s : sims)
      fmt::print("{:<12} {:>10.1f} {:>12.0f} {:>10.1f} {:>6.1f} {:>10.2f} {}\n", s.name,
                 s.macs * 1e-6, s.cycles, s.seconds * 1e6, 100 * s.utilization,
                 s.dram_bytes * 1e-6, s.dram_bound ? "dram" : "compute");
  }
  return 0;
}

RunFn setup_resnet50(CLI::App &command) {
  auto o = std::make_shared<ResnetOptions>();
  o->context.add_to(command);
  command.add_option("--passes", o->passes, "timed passes of each backend")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  command.add_flag("--layers", o->layers, "print each layer's simulated record (fpga_sim)");
  return [o] { return run_resnet50(*o); };
}

const RegisterSubcommand kResnet50{
    {"resnet50", "int8 ResNet-50 at batch 1: host time against the cpu backend, simulated time on fpga_sim",
     setup_resnet50}};

}  // namespace
}  // namespace dlk::perf
