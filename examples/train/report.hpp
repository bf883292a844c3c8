// dlk-train's output: the per-epoch table (docs/train.md names its columns) and
// the run as JSON, schema "dlk-train/run/1".
#pragma once

#include <cstdio>
#include <string>

#include <dlk/dlk.h>
#include <nlohmann/json.hpp>

#include "model_spec.hpp"
#include "options.hpp"
#include "run_record.hpp"

namespace dlk_train {

struct RunContext {
  const Options &options;
  const ModelSpec &model;
  const dlk_context_info &info;
  int ranks;
  int64_t local_batch;  // rank 0's
  int64_t steps_per_epoch;
  int64_t train_images, test_images;
  bool simulated;  // fpga_sim: the table has sim_ms
  std::string hostname;
  int cpus;
  double load_1min;  // when the run began
};

// Hostname, online CPUs and load average of this machine, for RunContext.
void describe_machine(RunContext &run);

void print_table_header(std::FILE *out, const RunContext &run);
void print_table_row(std::FILE *out, const RunContext &run, const EpochRow &row);

nlohmann::ordered_json run_json(const RunContext &run, const RunRecord &record);

}  // namespace dlk_train
