// Which micro-kernel each ISA tier runs, with the block sizes of the BLIS loops
// around it (the role of BLIS's bli_cntx_init_<arch>.c): one table row per tier,
// the block sizes derived from the cache sizes the CPU reports.
#pragma once

#include <cstdint>

#include "backends/cpu_avx512/kernels/bf16_round_kernels.hpp"
#include "backends/cpu_avx512/kernels/gemm_microkernel.hpp"
#include "backends/cpu_avx512/kernels/gemm_pack_kernels.hpp"
#include "backends/cpu_avx512/kernels/gemm_store_kernels.hpp"
#include "core/backend.hpp"

namespace dlk::cpu {

// Block sizes of the five BLIS loops: a KC x NC block of B is packed once and
// shared by the threads; each thread packs MC x KC blocks of A; the micro-kernel
// runs MR x NR tiles. mc is a multiple of mr, nc of nr.
struct GemmBlocking {
  int mr, nr;
  int64_t mc, kc, nc;
};

template <class Kernel>
struct GemmKernel {
  Kernel run;
  const char *name;  // "<isa>:<kernel>", for the verbose line
  GemmBlocking blocking;
  bool reads_a_in_place;  // honours F32Tile / S32Tile::a_rs
  bool reads_b_in_place;  // honours F32Tile::b_rs
  bool reads_a_columns_in_place;  // honours F32Tile::a_cs
  bool stores_in_tile;  // honours F32Tile::bf16 or S32Tile::requantize
  bool sums_tail_columns;  // honours F32Tile::b_tail
};

struct GemmKernelSet {
  GemmKernel<kernels::GemmF32Microkernel> f32;  // also f16, and bf16 without bf16_pairs
  GemmKernel<kernels::GemmS32Microkernel> s32;
  // s8 A x u8 B (GemmArgs::s8_a); run is null where the tier has none.
  GemmKernel<kernels::GemmS8U8Microkernel> s8u8;
  GemmKernel<kernels::GemmBf16Microkernel> bf16_pairs;  // run is null where the tier has none
  // bf16 x bf16 and int8 on AMX tiles, A by rows (gemm_amx_32x32.cpp); run is
  // null where the CPU has no AMX-BF16 / AMX-INT8. Where it has, GEMM runs
  // them (gemm_driver.cpp, with_path).
  GemmKernel<kernels::GemmBf16Microkernel> bf16_amx;
  GemmKernel<kernels::GemmS32Microkernel> s32_amx;
  GemmKernel<kernels::GemmS8U8Microkernel> s8u8_amx;
  kernels::GemmPackKernels pack;
  // s32/f32/s8/u8 C from the s32 accumulator; null: store_s32_tile's scalar rule.
  kernels::S32TileStoreKernel store_s32 = nullptr;
  // bf16 C's rounding of rows of f32 values; null: core::f32_to_bf16 each.
  kernels::RoundToBf16 round_bf16 = nullptr;
};

// A GEMM thread (blocked or unpacked loops) asks for at least this many
// multiply-adds: below it, starting and synchronising the team (a fork, a
// barrier per k block) costs more than the thread saves. 2^16 threaded a 64^3
// int8 GEMM, which one thread does in about 2 us; on a loaded machine its
// 2-thread runs took up to 30x longer.
constexpr int64_t kGemmMinMacsPerThread = int64_t{1} << 20;

// The kernels of `isa` (which the caller has checked the CPU has).
const GemmKernelSet &gemm_kernel_set(core::CpuIsa isa);

// The block sizes for an MR x NR kernel on `elem_bytes`-byte packed operands and
// the given data cache sizes in bytes (0: unknown, a typical size is assumed).
GemmBlocking derive_blocking(int mr, int nr, int elem_bytes, int64_t l1, int64_t l2, int64_t l3);

}  // namespace dlk::cpu
