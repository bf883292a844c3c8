// `dlk-perf resnet50`: an int8 ResNet-50 forward pass at batch 1 (u8
// activations, s8 weights, per-channel scales, u8 outputs requantized with bias
// and ReLU), timed on the host; on fpga_sim also the accelerator's simulated
// time summed over the layers. The CPU backend runs the same pass, alternating
// with it, as the peer its host time is compared with. The JSON schema is
// documented in perf/README.md ("dlk-perf/resnet50/1").
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "dlk/dlk.hpp"
#include "perf/common/context_options.hpp"
#include "perf/machine/machine_header.hpp"
#include "perf/common/output_options.hpp"
#include "perf/common/progress.hpp"
#include "perf/common/report_table.hpp"
#include "perf/workloads/resnet50_layers.hpp"
#include "perf/charts/roofline_svg.hpp"
#include "perf/common/stats.hpp"
#include "perf/commands/subcommand.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {
namespace {

struct ResnetOptions {
  ContextOptions context;
  int passes = 5;
  bool layers = false;
  OutputOptions output;
};

// What one layer did: the work dlk recorded, and on the simulated accelerator its record.
struct LayerRun {
  std::string name;
  dlk_op_record record{};
  bool simulated = false;
  double macs = 0, cycles = 0, seconds = 0, utilization = 0, dram_bytes = 0;
  bool dram_bound = false;
};

ReportTable layers_table() {
  return ReportTable({{"name", "layer", 1, 0},
                      {"flops", "MOP", 1e-6, 1},
                      {"bytes", "MB", 1e-6, 2},
                      {"implementation", "dlk impl", 1, 0, Show::json},
                      {"sim_macs", "MMAC", 1e-6, 1},
                      {"sim_cycles", "cycles", 1, 0},
                      {"sim_seconds", "sim us", 1e6, 1},
                      {"sim_mac_utilization", "util%", 100, 1},
                      {"sim_dram_bytes", "DRAM MB", 1e-6, 2},
                      {"sim_bound", "bound", 1, 0}});
}

// Host time per pass: wall (median, min, max) and the process's CPU time.
nlohmann::ordered_json host_json(const Summary &wall, const Summary &cpu) {
  return {{"seconds", wall.median}, {"seconds_min", wall.min}, {"seconds_max", wall.max},
          {"cpu_seconds", cpu.median}};
}

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

// One pass; each layer's record (and simulated record when the context
// simulates) when `record`.
std::vector<LayerRun> run_pass(dlk::Context &context, const std::vector<ResnetLayer> &layers,
                               Buffers &b, bool record, bool simulated) {
  std::vector<LayerRun> runs;
  for (const ResnetLayer &l : layers) {
    run_layer(context.get(), l, b);
    if (!record) continue;
    LayerRun run{l.name, context.last_op()};
    if (simulated) {
      const dlk_sim_record r = context.last_sim();
      run.simulated = true;
      run.macs = r.macs, run.cycles = r.cycles, run.seconds = r.seconds, run.utilization = r.mac_utilization;
      run.dram_bytes = r.dram_bytes_read + r.dram_bytes_written, run.dram_bound = r.dram_bound != 0;
    }
    runs.push_back(run);
  }
  return runs;
}

std::string dlk_version_text() {
  const dlk_version v = dlk_get_version();
  return fmt::format("{}.{}.{}", v.major, v.minor, v.patch);
}

int run_resnet50(const ResnetOptions &o) {
  const double start = now_seconds();
  dlk::Context target(o.context.to_dlk());
  ContextOptions cpu_options = o.context;
  cpu_options.backend = "cpu";
  dlk::Context cpu(cpu_options.to_dlk());
  const dlk_context_info info = target.info();
  const int cpu_threads = cpu.info().num_threads;
  const bool simulated = std::string(info.backend) == "fpga_sim";
  const std::vector<ResnetLayer> layers = resnet50_layers();
  const MachineHeader header = context_machine_header(info);
  RooflineSvg chart(o.output.svg, info, o.output.progress());
  Buffers buffers;

  // One untimed pass each, recording every layer, then passes alternating between the two backends.
  const std::vector<LayerRun> runs = run_pass(target, layers, buffers, true, simulated);
  run_pass(cpu, layers, buffers, false, false);
  std::vector<double> target_seconds, cpu_seconds, target_cpu_time, cpu_cpu_time;
  const auto timed = [&](dlk::Context &context, std::vector<double> &wall,
                         std::vector<double> &cpu_time) {
    const double start_pass = now_seconds(), start_cpu = process_cpu_seconds();
    run_pass(context, layers, buffers, false, false);
    wall.push_back(now_seconds() - start_pass);
    cpu_time.push_back(process_cpu_seconds() - start_cpu);
  };
  {
    Progress progress(o.output.progress());
    for (int p = 0; p < o.passes; ++p) {
      progress.update(fmt::format("resnet50 pass {} of {} on {} and cpu", p + 1, o.passes, info.backend),
                      static_cast<double>(p) / o.passes);
      timed(target, target_seconds, target_cpu_time);
      timed(cpu, cpu_seconds, cpu_cpu_time);
    }
  }
  const Summary t = summarize(target_seconds), c = summarize(cpu_seconds);
  const Summary tc = summarize(target_cpu_time), cc = summarize(cpu_cpu_time);

  Work work;
  double macs = 0, cycles = 0, sim_seconds = 0, dram = 0;
  int dram_bound = 0;
  ReportTable layer_rows = layers_table();
  for (const LayerRun &r : runs) {
    work.flops += r.record.flops, work.bytes += r.record.bytes;
    macs += r.macs, cycles += r.cycles, sim_seconds += r.seconds, dram += r.dram_bytes;
    dram_bound += r.dram_bound ? 1 : 0;
    Cell s_macs, s_cycles, s_seconds, s_util, s_dram, s_bound;
    if (r.simulated) {
      s_macs = r.macs, s_cycles = r.cycles, s_seconds = r.seconds, s_util = r.utilization, s_dram = r.dram_bytes;
      s_bound = std::string(r.dram_bound ? "dram" : "compute");
      chart.add(r.name, Work{r.record.flops, r.record.bytes}, r.seconds, true);
    }
    layer_rows.add_row({r.name, r.record.flops, r.record.bytes, std::string(r.record.implementation), s_macs,
                        s_cycles, s_seconds, s_util, s_dram, s_bound});
  }
  const double utilization = simulated ? macs / (info.peak_int8_ops / 2 * sim_seconds) : 0;
  const bool peer = std::string(info.backend) != "cpu";
  chart.add("resnet50 pass", work, simulated ? sim_seconds : t.median, simulated,
            {{"dlk cpu (host time)", peer ? c.median : 0}});
  chart.write(fmt::format("dlk-perf resnet50: int8, batch 1, backend {}, {} threads", info.backend,
                          info.num_threads));
  const double wall = now_seconds() - start;

  if (o.output.json) {
    nlohmann::ordered_json doc;
    doc["schema"] = "dlk-perf/resnet50/1";
    doc["dlk"] = {{"version", dlk_version_text()}, {"backend", info.backend}, {"device", info.device},
                  {"isa", info.isa}, {"threads", info.num_threads}};
    doc["machine"] = header.json();
    doc["peer"] = {{"backend", "cpu"}, {"threads", cpu_threads}};
    doc["model"] = {{"name", "ResNet-50 v1.5"}, {"dtype", "int8"}, {"batch", 1}, {"height", 224},
                    {"width", 224}, {"ops", layers.size()}};
    doc["passes"] = o.passes;
    doc["host"] = host_json(t, tc);
    doc["peer_host"] = host_json(c, cc);
    doc["ratio_to_peer"] = c.median / t.median;
    doc["work"] = {{"flops", work.flops}, {"bytes", work.bytes}};
    doc["simulated"] = nullptr;
    if (simulated)
      doc["simulated"] = {{"seconds", sim_seconds}, {"cycles", cycles},         {"macs", macs},
                          {"mac_utilization", utilization}, {"dram_bytes", dram}, {"dram_bound_ops", dram_bound}};
    doc["layers"] = layer_rows.json();
    doc["wall_seconds"] = wall;
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }

  fmt::print("dlk-perf resnet50: int8 ResNet-50 v1.5 forward, batch 1, 224x224 ({} ops: 53 conv, "
             "2 pool, 1 fc; residual adds left out), {:.2f} GOP, {:.1f} MB moved by the ops\n",
             layers.size(), work.flops * 1e-9, work.bytes * 1e-6);
  fmt::print("\n{}\n", header.text());
  fmt::print("backend {} ({}), {} threads; peer: cpu ({} threads), passes alternating\n",
             info.backend, info.device, info.num_threads, cpu_threads);
  fmt::print("host time per pass: {} median {:.3f} s (min {:.3f}), cpu median {:.3f} s (min "
             "{:.3f}); {} / cpu = {:.2f}, over {} passes\n",
             info.backend, t.median, t.min, c.median, c.min, info.backend, t.median / c.median,
             o.passes);
  fmt::print("process CPU time per pass: {} median {:.3f} s, cpu median {:.3f} s; {} / cpu = "
             "{:.2f}\n",
             info.backend, tc.median, cc.median, info.backend, tc.median / cc.median);
  if (simulated)
    fmt::print("simulated: {:.3f} ms ({:.0f} cycles), {:.2f} GMAC, MAC utilization {:.1f} %, DRAM "
               "{:.1f} MB, {} of {} ops DRAM bound\n",
               sim_seconds * 1e3, cycles, macs * 1e-9, 100 * utilization, dram * 1e-6, dram_bound, runs.size());
  if (o.layers) fmt::print("\n{}", layer_rows.text());
  return 0;
}

RunFn setup_resnet50(CLI::App &command) {
  auto o = std::make_shared<ResnetOptions>();
  o->context.add_to(command);
  command.add_option("--passes", o->passes, "timed passes of each backend")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  command.add_flag("--layers", o->layers, "print each layer's work and (fpga_sim) simulated record");
  o->output.add_to(command, "dlk-perf/resnet50/1",
                   "the pass (on fpga_sim also each layer, simulated) on the roofline of the backend's ceilings");
  return [o] { return run_resnet50(*o); };
}

const RegisterSubcommand kResnet50{
    {"resnet50", "int8 ResNet-50 at batch 1: host time against the cpu backend, simulated time on fpga_sim",
     setup_resnet50}};

}  // namespace
}  // namespace dlk::perf
