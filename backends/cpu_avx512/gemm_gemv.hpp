// bf16 and int8 GEMMs whose C is one row or one column, without packing
// (kernels/gemv_kernels.hpp): the rule and the driver.
#pragma once

#include "core/backend.hpp"

namespace dlk::cpu {

// Runs args (every batch entry) on the GEMV loops of `isa` when the rule picks
// them: bf16 x bf16 or int8 operands, m == 1 or n == 1, the matrix operand
// contiguous along the outputs or along k, and `path` not `blocked`. Returns the
// name of the loops that ran, or null when the blocked loops must run instead.
const char *gemm_gemv(const core::GemmArgs &args, core::CpuIsa isa, int threads,
                      core::CpuGemmPath path);

}  // namespace dlk::cpu
