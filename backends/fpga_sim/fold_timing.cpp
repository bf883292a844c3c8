#include "backends/fpga_sim/fold_timing.hpp"

#include <algorithm>
#include <cmath>

namespace dlk::fpga_sim {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// What one fold moves between DRAM and the buffers, and through the buffers.
struct FoldTraffic {
  double load = 0;   // DRAM -> buffers before the fold can start
  double store = 0;  // buffers -> DRAM after the fold
  double buffer_read = 0, buffer_written = 0;
};

// The traffic of fold (fc, fr), fc over the column folds (outer loop, as
// SCALE-Sim orders them) and fr over the row folds. `used_rows` and `used_cols`
// are the parts of the array this fold maps.
class TrafficModel {
 public:
  TrafficModel(const AcceleratorConfig &c, const ArrayGemm &g, const FoldMapping &f)
      : c_(c), g_(g), f_(f) {
    const double m = static_cast<double>(g.m), n = static_cast<double>(g.n);
    // An operand stays on chip for the whole op when it fits in half its
    // buffer (the other half is filling); otherwise it is fetched again on
    // every pass of the outer loop.
    a_resident_ = g.a_footprint <= static_cast<double>(c.input_buffer_bytes) / 2;
    b_resident_ = g.b_footprint <= static_cast<double>(c.weight_buffer_bytes) / 2;
    // Partial sums of one column fold (ws: m x cols, is: cols x n) stay in the
    // accumulators when they fit in half of them; otherwise they go out to DRAM
    // and come back for the next row fold.
    const double partials =
        4.0 * static_cast<double>(c.cols) * (c.dataflow == Dataflow::weight_stationary ? m : n);
    partials_fit_ = partials <= static_cast<double>(c.accumulator_buffer_bytes) / 2;
    // os: one column block of B (k x cols) is reused across the inner loop when it fits.
    b_block_fits_ = static_cast<double>(g.k * c.cols * g.b_bytes) <=
                    static_cast<double>(c.weight_buffer_bytes) / 2;
  }

  FoldTraffic fold(int64_t fc, int64_t fr, int64_t used_rows, int64_t used_cols) const {
    const double m = static_cast<double>(g_.m), n = static_cast<double>(g_.n),
                 k = static_cast<double>(g_.k), rows = static_cast<double>(used_rows),
                 cols = static_cast<double>(used_cols);
    const double all_outputs = m * n;
    FoldTraffic t;
    const bool last_row_fold = fr == f_.row_folds - 1;
    switch (c_.dataflow) {
      case Dataflow::output_stationary: {  // rows over m, cols over n, k in time
        if (fc == 0 || !a_resident_) t.load += g_.a_footprint * rows / m;
        if (fr == 0 || !b_block_fits_) t.load += g_.b_footprint * cols / n;
        const double outputs = rows * cols;
        t.load += g_.c_read * outputs / all_outputs;
        t.store += g_.c_written * outputs / all_outputs;
        t.buffer_read = rows * k * g_.a_bytes + k * cols * g_.b_bytes;
        t.buffer_written = outputs * 4;
        break;
      }
      case Dataflow::weight_stationary: {  // rows over k, cols over n, m in time
        t.load += g_.b_footprint * rows * cols / (k * n);
        if (fc == 0 || !a_resident_) t.load += g_.a_footprint * rows / k;
        add_partials(t, fr, m * cols, last_row_fold);
        if (last_row_fold) {
          t.load += g_.c_read * m * cols / all_outputs;
          t.store += g_.c_written * m * cols / all_outputs;
        }
        t.buffer_read = rows * cols * g_.b_bytes + m * rows * g_.a_bytes;
        t.buffer_written = m * cols * 4;
        break;
      }
      case Dataflow::input_stationary: {  // rows over k, cols over m, n in time
        t.load += g_.a_footprint * rows * cols / (k * m);
        if (fc == 0 || !b_resident_) t.load += g_.b_footprint * rows / k;
        add_partials(t, fr, cols * n, last_row_fold);
        if (last_row_fold) {
          t.load += g_.c_read * cols * n / all_outputs;
          t.store += g_.c_written * cols * n / all_outputs;
        }
        t.buffer_read = rows * cols * g_.a_bytes + rows * n * g_.b_bytes;
        t.buffer_written = cols * n * 4;
        break;
      }
    }
    return t;
  }

 private:
  void add_partials(FoldTraffic &t, int64_t fr, double partial_count, bool last) const {
    if (partials_fit_) return;
    if (fr > 0) t.load += 4.0 * partial_count;
    if (!last) t.store += 4.0 * partial_count;
  }

  const AcceleratorConfig &c_;
  const ArrayGemm &g_;
  const FoldMapping &f_;
  bool a_resident_ = false, b_resident_ = false, partials_fit_ = false, b_block_fits_ = false;
};

}  // namespace

FoldMapping map_gemm(const AcceleratorConfig &c, int64_t m, int64_t n, int64_t k) {
  FoldMapping f{};
  switch (c.dataflow) {
    case Dataflow::output_stationary: f.spatial_rows = m, f.spatial_cols = n, f.temporal = k; break;
    case Dataflow::weight_stationary: f.spatial_rows = k, f.spatial_cols = n, f.temporal = m; break;
    case Dataflow::input_stationary: f.spatial_rows = k, f.spatial_cols = m, f.temporal = n; break;
  }
  f.row_folds = ceil_div(f.spatial_rows, c.rows);
  f.col_folds = ceil_div(f.spatial_cols, c.cols);
  // os: operands enter skewed along rows and columns while k streams; the last
  // sum leaves the far corner R + C - 2 cycles after the first MAC. ws and is:
  // the stationary tile takes R cycles to load before streaming starts, and the
  // streamed operand adds another R - 1 of skew.
  f.cycles_per_fold = c.dataflow == Dataflow::output_stationary
                          ? c.rows + c.cols + f.temporal - 2
                          : 2 * c.rows + c.cols + f.temporal - 2;
  return f;
}

int64_t compute_cycles(const AcceleratorConfig &c, int64_t m, int64_t n, int64_t k) {
  const FoldMapping f = map_gemm(c, m, n, k);
  return f.row_folds * f.col_folds * f.cycles_per_fold;
}

SimCost time_gemm(const AcceleratorConfig &c, const ArrayGemm &g) {
  SimCost cost;
  if (g.m == 0 || g.n == 0) return cost;
  const FoldMapping f = map_gemm(c, g.m, g.n, std::max<int64_t>(g.k, 1));
  const TrafficModel traffic(c, g, f);
  const double bytes_per_cycle = c.dram_bytes_per_second / c.clock_hz;
  const double fold_cycles = static_cast<double>(f.cycles_per_fold);
  const auto transfer = [&](double bytes) { return bytes / bytes_per_cycle; };

  // Double buffering: while fold i computes, DRAM brings in what fold i+1
  // needs and takes out what fold i-1 produced; fold i+1 starts when both the
  // array and the transfers are done. The first load and the last store are exposed.
  double cycles = c.dram_latency_seconds * c.clock_hz;
  double previous_store = 0;
  FoldTraffic current{};
  bool first = true;
  for (int64_t fc = 0; fc < f.col_folds; ++fc) {
    const int64_t used_cols = std::min(c.cols, f.spatial_cols - fc * c.cols);
    for (int64_t fr = 0; fr < f.row_folds; ++fr) {
      const int64_t used_rows = std::min(c.rows, f.spatial_rows - fr * c.rows);
      const FoldTraffic next = traffic.fold(fc, fr, used_rows, used_cols);
      cost.dram_bytes_read += next.load;
      cost.dram_bytes_written += next.store;
      cost.buffer_bytes_read += next.buffer_read;
      cost.buffer_bytes_written += next.buffer_written;
      if (first) {
        cycles += transfer(next.load);
        first = false;
      } else {
        // `current` computes while `next` loads and the one before `current` stores.
        cycles += std::max(fold_cycles, transfer(next.load + previous_store));
        previous_store = current.store;
      }
      current = next;
    }
  }
  cycles += std::max(fold_cycles, transfer(previous_store)) + transfer(current.store);

  cost.folds = f.row_folds * f.col_folds;
  cost.compute_cycles = static_cast<double>(cost.folds) * fold_cycles;
  cost.macs = static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k);
  cost.dram_transfer_cycles = transfer(cost.dram_bytes_read + cost.dram_bytes_written);
  const double epilogue = std::ceil(static_cast<double>(g.m) * static_cast<double>(g.n) /
                                    static_cast<double>(c.vector_lanes)) *
                          (c.clock_hz / c.vector_clock_hz);
  cost.cycles = std::ceil(std::max(cycles, epilogue));
  return cost;
}

SimCost time_vector(const AcceleratorConfig &c, double element_ops, double dram_read,
                    double dram_written) {
  SimCost cost;
  const double bytes_per_cycle = c.dram_bytes_per_second / c.clock_hz;
  cost.compute_cycles =
      std::ceil(element_ops / static_cast<double>(c.vector_lanes)) * (c.clock_hz / c.vector_clock_hz);
  cost.dram_bytes_read = dram_read;
  cost.dram_bytes_written = dram_written;
  cost.buffer_bytes_read = dram_read;
  cost.buffer_bytes_written = dram_written;
  cost.dram_transfer_cycles = (dram_read + dram_written) / bytes_per_cycle;
  cost.cycles = std::ceil(c.dram_latency_seconds * c.clock_hz +
                          std::max(cost.compute_cycles, cost.dram_transfer_cycles));
  return cost;
}

}  // namespace dlk::fpga_sim
