// The f32 GEMM without packing, for the shapes where packing A and B costs more
// than the blocked loops save: one row or one column of C, a tiny k, a small
// product (the rule and its measurements are in gemm_unpacked.cpp).
#pragma once

#include <optional>

#include "backends/cpu_avx512/kernels/gemm_unpacked_kernels.hpp"
#include "core/backend.hpp"

namespace dlk::cpu {

// How the unpacked loops run a GEMM: which form, and whether on C^T = B^T A^T
// (the lanes then run along m).
struct UnpackedPlan {
  kernels::UnpackedForm form;
  bool transposed;
};

// The plan when `path` (the rule, unless forced) picks the unpacked loops for
// args (f32 A, B and C, B from args.b, operands contiguous along one
// dimension), else nothing: the blocked loops run.
std::optional<UnpackedPlan> plan_unpacked(const core::GemmArgs &args, core::CpuGemmPath path);

// Computes args (every batch entry) by `plan` with the loops of `isa`, on up to
// `threads` OpenMP threads. Returns the name of the loops that ran, for the
// verbose line.
const char *gemm_unpacked(const core::GemmArgs &args, const UnpackedPlan &plan, core::CpuIsa isa,
                          int threads);

}  // namespace dlk::cpu
