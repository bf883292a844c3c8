// The last step of a GEMM tile: the accumulator tile, computed in f32 or s32,
// becomes C in C's type by exactly the rules of dlk.h (alpha, beta, scales,
// requantization) and GemmArgs' epilogue (bias, ReLU). beta == 0 never reads C.
#pragma once

#include <cstdint>

#include "backends/cpu_avx512/kernels/bf16_round_kernels.hpp"
#include "backends/cpu_avx512/kernels/gemm_microkernel.hpp"
#include "backends/cpu_avx512/kernels/gemm_store_kernels.hpp"
#include "core/backend.hpp"

namespace dlk::cpu {

// Where a tile goes: rows [i0, i0 + rows) and columns [j0, j0 + cols) of C in
// batch entry `batch`; acc holds it with row stride ld.
struct TileSpot {
  int64_t batch, i0, j0, rows, cols;
};

// f32, f16 or bf16 C: C = alpha * acc + beta * C, then bias and ReLU, rounded
// once to C's type; bf16 rows along C's contiguous dimension by `round_bf16`
// where given (the same bits as core::f32_to_bf16).
void store_f32_tile(const core::GemmArgs &g, const TileSpot &spot, const float *acc, int64_t ld,
                    kernels::RoundToBf16 round_bf16 = nullptr);
// s32, f32, s8 or u8 C from an integer accumulator, by
// `kernel` (the tier's GemmKernelSet::store_s32) where it is given and one of
// C's strides is 1, else by the scalar rule. Both give the same bits.
void store_s32_tile(const core::GemmArgs &g, const TileSpot &spot, const int32_t *acc, int64_t ld,
                    kernels::S32TileStoreKernel kernel);
// Whether an integer GEMM's micro-kernel may requantize into C itself
// (S32Tile::requantize): s8 or u8 C with contiguous rows, beta 0, and the
// multipliers and bias finite, so that no value is NaN.
bool requantizes_in_tile(const core::GemmArgs &g);
// The requantization of the tile at `spot` into C (requantizes_in_tile).
kernels::S32Requantize requantize_spot(const core::GemmArgs &g, const TileSpot &spot);

}  // namespace dlk::cpu
