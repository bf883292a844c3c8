// `dlk-perf ceilings`: the measured ceilings of the machine (peak ops/s per
// dtype and ISA tier, read bandwidth per memory level from a working-set
// sweep), each beside its theoretical figure, cached per machine and thread
// count. Schema dlk-perf/ceilings/1 (perf/README.md).
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "dlk/dlk.hpp"
#include "perf/ceilings/ceilings_cache.hpp"
#include "perf/ceilings/ceilings_report.hpp"
#include "perf/common/context_options.hpp"
#include "perf/machine/machine_header.hpp"
#include "perf/common/output_options.hpp"
#include "perf/charts/roofline_chart.hpp"
#include "perf/commands/subcommand.hpp"
#include "perf/charts/svg_chart.hpp"

namespace dlk::perf {
namespace {

struct CeilingsOptions {
  ContextOptions context;
  OutputOptions output;
  bool refresh = false;
};

int run_ceilings(const CeilingsOptions &o) {
  dlk::Context context(o.context.to_dlk());
  const dlk_context_info info = context.info();
  const bool cpu = std::string(info.backend) == "cpu";

  const ObtainedCeilings got = backend_ceilings(info, o.refresh, o.output.progress());
  const MachineCeilings &m = got.ceilings;
  MachineHeader header = machine_header(info.num_threads, cpu ? m.clock_hz : 0);
  header.add("backend", "backend", fmt::format("{} ({}, isa {})", info.backend, info.device, info.isa),
             {{"name", info.backend}, {"device", info.device}, {"isa", info.isa}});
  const std::vector<std::string> warnings = m.above_theory();

  if (!o.output.svg.empty())
    write_svg_file(o.output.svg,
                   render_svg(roofline_chart(m, {}, fmt::format("Ceilings of backend {}", info.backend))));

  if (o.output.json) {
    nlohmann::ordered_json doc = to_json(m);
    doc["backend"] = info.backend;
    doc["source"] = {{"from_cache", got.from_cache}, {"note", got.note}};
    doc["machine"] = header.json();
    doc["warnings"] = warnings;
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  fmt::print("dlk-perf ceilings: backend {}, {} thread{}\n\n{}\n", info.backend, info.num_threads,
             info.num_threads == 1 ? "" : "s", header.text());
  fmt::print("ceilings: {}\n\ncompute (best run; theory = per-cycle width x threads x clock)\n{}", got.note,
             compute_ceilings_table(m).text());
  fmt::print("{}", missing_dtypes_text(m));
  fmt::print("\nmemory (read bandwidth; plateaus of the working-set sweep)\n{}", memory_ceilings_table(m).text());
  if (!m.sweep.empty()) fmt::print("\nworking-set sweep\n{}", sweep_table(m).text());
  for (const std::string &w : warnings) fmt::print("warning: {} (a bug to explain, or the clock rose)\n", w);
  fmt::print("\nmethod: {}\n", m.method);
  fmt::print("The machine is shared: figures move from run to run (clock 3.3-4.1 GHz, DRAM up to 2x).\n");
  return 0;
}

RunFn setup_ceilings(CLI::App &command) {
  auto o = std::make_shared<CeilingsOptions>();
  o->context.add_to(command);
  o->output.add_to(command, kCeilingsSchema, "the ceilings as an empty roofline");
  command.add_flag("--refresh", o->refresh, "measure again even when the cache has this machine's ceilings");
  return [o] { return run_ceilings(*o); };
}

const RegisterSubcommand kCeilings{
    {"ceilings", "peak ops/s per dtype and read bandwidth per memory level, measured and theoretical (cached)",
     setup_ceilings}};

}  // namespace
}  // namespace dlk::perf
