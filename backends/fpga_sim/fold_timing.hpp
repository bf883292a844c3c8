// The closed-form timing model of the systolic array: a GEMM is cut into folds
// that fit the array, each fold costs the cycles of its dataflow (fill, stream,
// drain), DRAM traffic follows from the tiling and the buffer sizes, and a fold
// waits when double-buffered DRAM transfers cannot keep up. No PE is ever
// stepped: every fold costs O(1) to account for.
#pragma once

#include <cstdint>

#include "backends/fpga_sim/accelerator_config.hpp"
#include "backends/fpga_sim/sim_cost.hpp"

namespace dlk::fpga_sim {

// C (m x n) = A (m x k) * B (k x n) as the array sees it. The footprints are
// the DRAM bytes of each operand: for a GEMM the matrices themselves; for a
// lowered convolution the image, which the address generator expands into the
// im2col matrix on chip.
struct ArrayGemm {
  int64_t m = 0, n = 0, k = 0;
  int64_t a_bytes = 1, b_bytes = 1;  // element sizes in the buffers
  double a_footprint = 0, b_footprint = 0;
  double c_written = 0;  // DRAM bytes of the result
  double c_read = 0;     // DRAM bytes of C read back (beta != 0)
};

// SCALE-Sim's mapping of a GEMM onto the array: the dimension laid along the
// rows (Sr), along the columns (Sc), and the one streamed in time (T).
struct FoldMapping {
  int64_t spatial_rows, spatial_cols, temporal;
  int64_t row_folds, col_folds;
  int64_t cycles_per_fold;
};
FoldMapping map_gemm(const AcceleratorConfig &config, int64_t m, int64_t n, int64_t k);

// Cycles with DRAM unlimited: row_folds * col_folds * cycles_per_fold, the
// number SCALE-Sim's compute model gives for the same array, dataflow and GEMM.
int64_t compute_cycles(const AcceleratorConfig &config, int64_t m, int64_t n, int64_t k);

// The whole account: compute, DRAM traffic and stalls, buffer traffic, and the
// vector unit's epilogue (one output element per lane per cycle), which drains
// folds while the array works and so only counts when it is the slower of the two.
SimCost time_gemm(const AcceleratorConfig &config, const ArrayGemm &gemm);

// The vector unit alone (pooling, col2im): `element_ops` one-lane operations,
// reading and writing DRAM once.
SimCost time_vector(const AcceleratorConfig &config, double element_ops, double dram_read,
                    double dram_written);

}  // namespace dlk::fpga_sim
