// The blocked GEMM on strided views, for dlk_gemm and for the ops that lower to
// GEMM (the convolutions call it on their im2col panels, or feed B through a
// BPanelPacker of their own).
#pragma once

#include "backends/cpu_avx512/gemm_pack.hpp"
#include "core/backend.hpp"

namespace dlk::cpu {

// Computes args exactly as dlk_gemm defines it with the kernels of `isa`, on up
// to `threads` OpenMP threads (1: on the calling thread only, so a caller may run
// it inside its own parallel region). args.c must have m, n and batch > 0; k may
// be 0. B comes from `b_packer` when given (args.b is then not read), else from
// args.b; A likewise from `a_packer` (args.a's dtype still says what A holds);
// an f32 GEMM with both from args runs without packing where `path`
// (gemm_unpacked.hpp's rule, or a forced path) says so. Returns the name of the
// loops that ran.
const char *gemm_strided(const core::GemmArgs &args, core::CpuIsa isa, int threads,
                         const BPanelPacker *b_packer = nullptr,
                         core::CpuGemmPath path = core::CpuGemmPath::rule,
                         const APanelPacker *a_packer = nullptr);

// Whether gemm_strided, given no A packer, reads args.a where it lies rather
// than packing it (gemm_driver.cpp's rule; args as the blocked loops run them:
// C's column stride 1, or a B packer given), for a caller that chooses between
// products: a convolution's weights at batch 1 are read in place as A, and
// would be packed as B.
bool gemm_reads_a_in_place(const core::GemmArgs &args, core::CpuIsa isa);

// Whether gemm_strided, given no packers, runs a float GEMM with column-major C
// (row stride 1) as it is rather than as C^T = B^T A^T (gemm_driver.cpp's rule).
bool gemm_keeps_column_major_c(const core::GemmArgs &args, core::CpuIsa isa);

// Whether bf16 x bf16 (int8: u8 x s8) GEMM runs on AMX tiles (the CPU has
// AMX-BF16 / AMX-INT8, Linux granted the tile state), given no A packer: some
// 4-16x the AVX-512 kernels' rate, so a convolution takes the GEMM there rather
// than a direct kernel.
bool gemm_runs_bf16_on_amx(core::CpuIsa isa);
bool gemm_runs_int8_on_amx(core::CpuIsa isa);

// The same product as C^T = B^T A^T: m and n, A and B, C's strides swapped, the
// bias per column where it was per row and the other way round (integer: the
// s8 operand and the zero point change sides too, GemmArgs::s8_a).
core::GemmArgs transposed(const core::GemmArgs &g);

// One product C (m x n) = A (m x k) * B (k x n) on strided views (batch 1,
// alpha 1, beta 0, no scales); C has row stride rs_c and column stride cs_c.
// Callers change beta or the zero point where they need to.
core::GemmArgs single_gemm(int64_t m, int64_t n, int64_t k, const core::MatrixView &a,
                           const core::MatrixView &b, void *c, dlk_dtype c_type, int64_t rs_c,
                           int64_t cs_c);

}  // namespace dlk::cpu
