// Floating-point values as the array computes them. Each processing element
// multiplies two operands (the product of two bf16 or f16 values is exact in
// f32; an f32 product is rounded to f32) and adds it to the partial sum it
// holds or receives, in f32. The order of those additions is the dataflow's:
//   os: one PE owns an output and adds k products in order 0..k-1;
//   ws, is: a column adds the `rows` products of one row fold top to bottom,
//           starting from zero, and the accumulator adds the fold sums in fold order.
// The result is deterministic and independent of the host it is simulated on.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/fpga_sim/accelerator_config.hpp"
#include "core/op_args.hpp"

namespace dlk::fpga_sim {

// How many k values one column adds before handing its sum to the accumulator.
int64_t accumulation_fold(const AcceleratorConfig &config, int64_t k);

// acc (m x n, row-major) = op(A) * op(B) of batch entry `batch` in the array's order.
void accumulate_in_array_order(const core::MatrixView &a, const core::MatrixView &b, int64_t m,
                               int64_t n, int64_t k, int64_t batch, int64_t k_fold,
                               std::vector<float> &acc);

// The float GEMM of dlk.h (alpha, beta, C's type) on the array.
void array_float_gemm(const AcceleratorConfig &config, const core::GemmArgs &args);

}  // namespace dlk::fpga_sim
