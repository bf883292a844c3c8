// The all-reduce section of `dlk-perf report`: dlk-perf launches itself under
// `mpirun` with 2 ranks on this machine, running `dlk-perf comm --json` on a
// small size set, and reads its JSON (schema dlk-perf/comm/1) back. Where
// mpirun is missing, dlk-perf was built without libdlk_comm, or the run fails,
// the section is skipped with the reason.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace dlk::perf {

struct AllreduceSizes {
  std::int64_t min_bytes = 4 << 10, max_bytes = 4 << 20;
  int factor = 4;
  double min_seconds = 0.05;  // per size, all algorithms together
  int max_calls = 20;
};

struct AllreduceRun {
  bool ran = false;
  std::string reason;       // why it did not run, when !ran
  std::string command;      // the command line launched
  std::string mpi_version;  // first line of `mpirun --version`
  int ranks = 2;
  nlohmann::json comm;      // rank 0's dlk-perf/comm/1 document, when ran
};

// comm_built: this dlk-perf has the comm subcommand.
AllreduceRun run_allreduce_under_mpirun(const AllreduceSizes &sizes, bool comm_built);

}  // namespace dlk::perf
