#include "backends/fpga_sim/sim_cost.hpp"

namespace dlk::fpga_sim {

SimCost &SimCost::operator+=(const SimCost &o) {
  cycles += o.cycles;
  compute_cycles += o.compute_cycles;
  macs += o.macs;
  dram_bytes_read += o.dram_bytes_read;
  dram_bytes_written += o.dram_bytes_written;
  buffer_bytes_read += o.buffer_bytes_read;
  buffer_bytes_written += o.buffer_bytes_written;
  dram_transfer_cycles += o.dram_transfer_cycles;
  folds += o.folds;
  overflows += o.overflows;
  return *this;
}

SimCost SimCost::scaled(double times) const {
  SimCost s = *this;
  s.cycles *= times;
  s.compute_cycles *= times;
  s.macs *= times;
  s.dram_bytes_read *= times;
  s.dram_bytes_written *= times;
  s.buffer_bytes_read *= times;
  s.buffer_bytes_written *= times;
  s.dram_transfer_cycles *= times;
  s.folds = static_cast<int64_t>(static_cast<double>(s.folds) * times);
  return s;
}

dlk_sim_record to_record(const SimCost &c, const AcceleratorConfig &config) {
  dlk_sim_record r{};
  r.struct_size = sizeof(dlk_sim_record);
  r.cycles = c.cycles;
  r.compute_cycles = c.compute_cycles;
  r.stall_cycles = c.cycles > c.compute_cycles ? c.cycles - c.compute_cycles : 0;
  r.seconds = c.cycles / config.clock_hz;
  r.macs = c.macs;
  const double peak = static_cast<double>(config.rows * config.cols) * c.cycles;
  r.mac_utilization = peak > 0 ? c.macs / peak : 0;
  r.dram_bytes_read = c.dram_bytes_read;
  r.dram_bytes_written = c.dram_bytes_written;
  r.buffer_bytes_read = c.buffer_bytes_read;
  r.buffer_bytes_written = c.buffer_bytes_written;
  r.folds = c.folds;
  r.overflows = c.overflows;
  r.dram_bound = c.dram_transfer_cycles > c.compute_cycles ? 1 : 0;
  return r;
}

}  // namespace dlk::fpga_sim
