// The compute side of a step: each layer's forward and backward seconds at a
// local batch, and the update's, from one of three sources:
//   measured   the layer's dlk ops (and dlk-train's host loops: bias copies,
//              ReLU, its mask, SGD) run on a dlk context now, median of
//              interleaved samples, cached per machine and layer;
//   simulated  fpga_sim: the simulated seconds of the layer's dlk ops (its
//              dlk_sim_record), plus the host loops measured here;
//   roofline   given ceilings (`--compute peak=...,bandwidth=...`): each part
//              takes max(FLOP / peak, bytes / bandwidth), bytes counted as the
//              operands each pass reads and writes once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dlk/dlk.hpp"
#include "perf/plan/compute_roof.hpp"
#include "perf/plan/plan_model.hpp"

namespace dlk::perf {

struct ComputeTimes {
  std::vector<double> forward_seconds, backward_seconds;  // per layer, forward order
  double update_seconds = 0;
  std::string source;  // "measured", "simulated (fpga_sim)", "roofline"
  int cached_layers = 0, measured_layers = 0;

  double total() const {
    double t = update_seconds;
    for (double f : forward_seconds) t += f;
    for (double b : backward_seconds) t += b;
    return t;
  }
};

// Per-sample bytes a layer's pass moves (f32), for the roofline source.
double forward_bytes(const PlanLayer &layer, std::int64_t batch);
double backward_bytes(const PlanLayer &layer, std::int64_t batch, bool first);

ComputeTimes roofline_times(const PlanModel &model, std::int64_t batch, const ComputeRoof &roof);

// Runs the layers on `context` (cpu: wall time, cached under cache_key;
// fpga_sim: simulated). refresh: measure even what the cache holds.
ComputeTimes measured_times(const PlanModel &model, std::int64_t batch, dlk::Context &context,
                            const std::string &cache_key, bool refresh, double min_seconds);

}  // namespace dlk::perf
