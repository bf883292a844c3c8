#include "perf/common/context_options.hpp"

#include <string>

#include <CLI/CLI.hpp>

#include "dlk/dlk.hpp"

namespace dlk::perf {

void ContextOptions::add_to(CLI::App &command) {
  command.add_option("--backend", backend,
                     "dlk backend: auto, cpu, cuda, fpga_sim (default: DLK_BACKEND, else auto)");
  command.add_option("--isa", isa,
                     "highest CPU ISA: avx512, avx2, scalar (default: DLK_CPU_ISA, else the best)");
  command.add_option("--threads", threads,
                     "threads of dlk and of the peers (default: DLK_NUM_THREADS, else the cores)")
      ->check(CLI::NonNegativeNumber);
}

bool is_device_backend(const dlk_context_info &info) { return std::string(info.backend) == "cuda"; }

dlk_context_options ContextOptions::to_dlk() const {
  dlk_context_options options = dlk::context_options();
  if (!backend.empty()) options.backend = backend.c_str();
  if (!isa.empty()) options.cpu_isa = isa.c_str();
  options.num_threads = threads;
  return options;
}

}  // namespace dlk::perf
