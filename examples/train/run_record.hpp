// What a run measured, as the trainer records it and report.cpp prints it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dlk_train {

// One epoch (or the part of it a run covered), means per step.
struct EpochRow {
  int epoch = 0;  // 1-based
  int64_t steps = 0;
  double train_loss = 0;     // mean over the epoch's samples, all ranks
  double test_accuracy = 0;  // fraction, after the epoch
  double step_seconds = 0;   // wall time of a step on rank 0, mean
  double step_seconds_median = 0;
  double train_seconds = 0;  // sum of every step's time since the run began
  double compute_seconds = 0;         // step_seconds less the exposed communication
  double exposed_comm_seconds = 0;    // blocked in the synchronizer's wait
  double codec_seconds = 0;           // encode + decode of the buckets (may overlap compute)
  double wire_bytes = 0;              // sent by rank 0 to other ranks
  double sim_seconds = 0;             // fpga_sim: the simulated accelerator's time of the ops
  double wall_seconds = 0;            // the epoch, test included
  std::string weights_checksum;       // FNV-1a of every weight and momentum, equal on every rank
};

struct LayerSpan {
  std::string name;
  double forward_start, forward_end, backward_start, backward_end;  // from the step's start
};

struct BucketSpan {
  int index;
  double start, end;  // from the step's start
  uint64_t logical_bytes, wire_bytes_sent, wire_bytes_received;
  double encode_seconds, decode_seconds;
  std::string algorithm;  // what ran (auto resolved, native in warm-up)
};

struct StepTimeline {
  int64_t step;
  double step_seconds, wait_start, wait_end, update_end;
  std::vector<LayerSpan> layers;
  std::vector<BucketSpan> buckets;
};

// A test scored during training (--eval-every): time to accuracy.
struct Evaluation {
  int64_t step;          // steps done
  double train_seconds;  // the steps' time so far, tests excluded
  double test_accuracy;  // fraction
};

struct RunRecord {
  std::vector<Evaluation> evals;
  const Evaluation *reached() const {  // the first at or above --target-accuracy
    return reached_index >= 0 ? &evals[static_cast<size_t>(reached_index)] : nullptr;
  }
  int reached_index = -1;
  std::vector<EpochRow> epochs;
  std::vector<StepTimeline> timeline;
  int64_t first_step = 0, last_step = 0;  // the run trained steps [first_step, last_step)
  int buckets = 0;
  uint64_t bucket_bytes = 0;  // the synchronizer's bucket size (--bucket-mb, or auto)
  double wall_seconds = 0;
};

}  // namespace dlk_train
