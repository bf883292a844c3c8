// The array accumulates integer products in 32-bit registers that wrap, as
// dlk.h's contract says. A wrapped result is what the hardware gives, so it is
// kept; how many outputs wrapped is counted for the op's record.
#pragma once

#include <cstdint>

#include "core/op_args.hpp"

namespace dlk::fpga_sim {

// Largest |sum| an s32 accumulator can be asked to hold by k products of A's
// type (minus the zero point) and s8: when that fits, nothing can wrap.
bool accumulator_may_overflow(dlk_dtype a_type, int32_t a_zero_point, int64_t k);

// Outputs of an integer GEMM whose exact sum lies outside [-2^31, 2^31 - 1];
// exact 64-bit sums are computed only when accumulator_may_overflow says so.
int64_t count_accumulator_overflows(const core::GemmArgs &args);
// The same for an integer convolution: outputs whose exact sum over their window
// (padding adds nothing: it holds the zero point) lies outside s32.
int64_t count_accumulator_overflows(const core::Conv2dArgs &args);

}  // namespace dlk::fpga_sim
