// The options that choose a dlk context, shared by every subcommand that runs
// ops: --backend, --isa, --threads. Left out, the context reads DLK_BACKEND,
// DLK_CPU_ISA and DLK_NUM_THREADS, as it does for any program.
#pragma once

#include <string>

#include "dlk/dlk.h"

namespace CLI {
class App;
}

namespace dlk::perf {

// Whether the context's memory is a device's (cuda), not the host's: its peers are
// the device's libraries and its peaks the device's.
bool is_device_backend(const dlk_context_info &info);

struct ContextOptions {
  std::string backend;  // empty: DLK_BACKEND, else auto
  std::string isa;      // empty: DLK_CPU_ISA, else the best the CPU has
  int threads = 0;      // 0: DLK_NUM_THREADS, else the cores the process may run on

  void add_to(CLI::App &command);
  // Points into this object: keep it alive while the result is used.
  dlk_context_options to_dlk() const;
};

}  // namespace dlk::perf
