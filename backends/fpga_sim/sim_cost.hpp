// What one op costs on the simulated accelerator: cycles, traffic and the
// account the public dlk_sim_record reports. Costs of the parts of an op (the
// GEMMs of a grouped convolution, a col2im pass) add up.
#pragma once

#include <cstdint>

#include "backends/fpga_sim/accelerator_config.hpp"
#include "dlk/dlk.h"

namespace dlk::fpga_sim {

struct SimCost {
  double cycles = 0;          // array clock, DRAM stalls included
  double compute_cycles = 0;  // the same with DRAM unlimited
  double macs = 0;            // useful multiply-accumulates
  double dram_bytes_read = 0, dram_bytes_written = 0;
  double buffer_bytes_read = 0, buffer_bytes_written = 0;
  double dram_transfer_cycles = 0;  // DRAM busy time, whether hidden or not
  int64_t folds = 0;
  int64_t overflows = 0;

  SimCost &operator+=(const SimCost &other);
  SimCost scaled(double times) const;  // the same op run `times` times in a row
};

// The public record: seconds from the clock, utilization against the whole
// array, DRAM bound when DRAM needs more cycles than compute.
dlk_sim_record to_record(const SimCost &cost, const AcceleratorConfig &config);

}  // namespace dlk::fpga_sim
