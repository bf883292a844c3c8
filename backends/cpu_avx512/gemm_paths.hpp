// What the blocked GEMM's loops (gemm_driver.cpp) take from the dtype: per
// path, the packed layouts of A and B, the micro-kernel of the tier's set,
// how A is packed, the tile a kernel call stores and how the workspace is
// stored into C. One struct per path: f32 (and f16, bf16 widened), bf16 in
// k-pairs, int8 with u8 or s8 A, and the AMX kernels' variants of them, which
// read A by rows.
#pragma once

#include <cstdint>
#include <numeric>

#include "backends/cpu_avx512/gemm_epilogue.hpp"
#include "backends/cpu_avx512/gemm_kernels.hpp"
#include "backends/cpu_avx512/gemm_pack.hpp"
#include "core/backend.hpp"

namespace dlk::cpu {

// Everything that differs between floating-point and integer GEMM.
struct FloatPath {
  using PackedA = float;
  using PackedB = float;
  using Acc = float;
  using Microkernel = kernels::GemmF32Microkernel;
  static constexpr PackedType packed_a = PackedType::f32;
  static constexpr PackedType packed_b = PackedType::f32;
  static constexpr int64_t k_group = 1;  // k of a packed block is a multiple of this
  static constexpr dlk_dtype packed_a_dtype = DLK_DTYPE_F32;  // an A the kernel may read in place
  static constexpr dlk_dtype packed_b_dtype = DLK_DTYPE_F32;  // a B likewise
  static constexpr bool col_sums = false;  // B's column sums after packing it
  static constexpr bool row_sums = false;  // A's row sums likewise
  static const GemmKernel<Microkernel> &kernel(const GemmKernelSet &s) { return s.f32; }
  static void pack_a(const kernels::GemmPackKernels &k, const PanelSource &s, int64_t count,
                     int64_t kc, int width, float *out) {
    pack_f32_panels(k, s, count, kc, width, out);
  }
  static bool in_place(const core::GemmArgs &g) { return g.c_type == DLK_DTYPE_F32 && g.cs_c == 1; }
  // Whether the micro-kernel's store applies the whole of C's rule and, on the
  // last k block, stores into C itself (the k blocks before sum into the
  // workspace): bf16 C with contiguous rows and beta 0 (a convolution's dst),
  // on a kernel that stores bf16. (Applied element by element in the
  // workspace's store, alpha, bias and ReLU took 12 % of res2a_1x1a's bf16
  // forward, 1 thread; the workspace's rounding pass after them 14 % of
  // res2a_1x1b's, k = 64: one k block; AMD EPYC Zen 5.)
  template <class Kernel>
  static bool stores_in_tile(const core::GemmArgs &g, const GemmKernel<Kernel> &kernel) {
    return kernel.stores_in_tile && g.c_type == DLK_DTYPE_BF16 && g.cs_c == 1 && g.beta == 0.0f;
  }
  // The micro-kernel's store of the tile at `spot`: with `whole_rule` (in
  // place, or stores_in_tile), the first k block applies alpha and
  // beta, the last one the epilogue (bias, ReLU); else it only sums.
  static kernels::F32Tile tile(const core::GemmArgs &g, bool whole_rule, bool first, bool last,
                               const TileSpot &spot, Acc *c, int64_t ldc, const int32_t *,
                               const int32_t *) {
    const float alpha = whole_rule ? g.alpha : 1.0f;
    const float beta = !first ? 1.0f : whole_rule ? g.beta : 0.0f;
    const bool epilogue = whole_rule && last;
    const float *bias = epilogue ? g.bias : nullptr;
    return {c, ldc, static_cast<int>(spot.rows), static_cast<int>(spot.cols), alpha, beta,
            bias && g.bias_per_row ? bias + spot.i0 : nullptr,
            bias && !g.bias_per_row ? bias + spot.j0 : nullptr, epilogue && g.relu, 0, 0, 0, 0,
            nullptr, 0, nullptr, 0};
  }
  static void store(const GemmKernelSet &set, const core::GemmArgs &g, const TileSpot &s,
                    const float *acc, int64_t ld) {
    store_f32_tile(g, s, acc, ld, set.round_bf16);
  }
};

// bf16 x bf16 on a CPU with AVX512_BF16: both operands as bf16 k-pairs, the
// rest as FloatPath.
struct Bf16Path : FloatPath {
  using PackedA = uint16_t;
  using PackedB = uint16_t;
  using Microkernel = kernels::GemmBf16Microkernel;
  static constexpr PackedType packed_a = PackedType::bf16_pairs;
  static constexpr PackedType packed_b = PackedType::bf16_pairs;
  static constexpr int64_t k_group = 2;
  static constexpr dlk_dtype packed_a_dtype = DLK_DTYPE_BF16;
  static constexpr dlk_dtype packed_b_dtype = DLK_DTYPE_BF16;
  static const GemmKernel<Microkernel> &kernel(const GemmKernelSet &s) { return s.bf16_pairs; }
  static void pack_a(const kernels::GemmPackKernels &k, const PanelSource &s, int64_t count,
                     int64_t kc, int width, uint16_t *out) {
    pack_bf16_pair_panels(k, s, count, kc, width, out);
  }
};

// bf16 x bf16 on AMX: B as Bf16Path's k-pairs (tdpbf16ps's B tile is 16 of
// their rows), A by rows (a tile row is 32 k of one row of A): read in place,
// or packed as a row-major copy of the block (bf16_rows), which the kernel
// reads as it reads A in place.
struct AmxBf16Path : Bf16Path {
  static constexpr PackedType packed_a = PackedType::bf16_rows;
  static const GemmKernel<Microkernel> &kernel(const GemmKernelSet &s) { return s.bf16_amx; }
  static void pack_a(const kernels::GemmPackKernels &, const PanelSource &s, int64_t count,
                     int64_t kc, int, uint16_t *out) {
    pack_bf16_rows(s, count, kc, out);
  }
};

// int8: A as u8 (s8 shifted by 128), B as s8, in k-quads; A's zero point (in
// u8 terms) enters through B's column sums, computed after packing each panel.
struct IntegerPath {
  using PackedA = uint8_t;
  using PackedB = int8_t;
  using Acc = int32_t;
  using Microkernel = kernels::GemmS32Microkernel;
  static constexpr PackedType packed_a = PackedType::u8_quads;
  static constexpr PackedType packed_b = PackedType::s8_quads;
  static constexpr int64_t k_group = 4;
  static constexpr dlk_dtype packed_a_dtype = DLK_DTYPE_U8;  // s8 A is shifted while packing
  static constexpr dlk_dtype packed_b_dtype = DLK_DTYPE_S8;  // no kernel reads B in place
  static constexpr bool col_sums = true;
  static constexpr bool row_sums = false;
  static const GemmKernel<Microkernel> &kernel(const GemmKernelSet &s) { return s.s32; }
  static void pack_a(const kernels::GemmPackKernels &k, const PanelSource &s, int64_t count,
                     int64_t kc, int width, uint8_t *out) {
    pack_u8_quad_panels(k, s, count, kc, width, out);
  }
  // s32 C: validation allows only alpha 1, beta 0 or 1 and no scales; ReLU
  // (s32 C takes no bias) is applied by the workspace's store.
  static bool in_place(const core::GemmArgs &g) {
    return g.c_type == DLK_DTYPE_S32 && g.cs_c == 1 && !g.relu && !g.bias;
  }
  // s8 or u8 C requantized by the micro-kernel (requantizes_in_tile).
  template <class Kernel>
  static bool stores_in_tile(const core::GemmArgs &g, const GemmKernel<Kernel> &kernel) {
    return kernel.stores_in_tile && requantizes_in_tile(g);
  }
  // The zero point of A as packed: s8 values are shifted by 128 in packing.
  // Where it is 0 (u8 A, zero point 0: activations after ReLU) B's column sums
  // are not computed (4 % of res5b's int8 forward at batch 1, where B, the
  // weights, is packed for 49 pixels).
  static int32_t a_zero(const core::GemmArgs &g) {
    return g.a_zero_point + (g.a.dtype == DLK_DTYPE_S8 ? 128 : 0);
  }
  static kernels::S32Tile tile(const core::GemmArgs &g, bool in_place, bool first, bool,
                               const TileSpot &spot, Acc *c, int64_t ldc, const int32_t *sums,
                               const int32_t *) {
    const bool accumulate = !first || (in_place && g.beta != 0.0f);
    return {c, ldc, static_cast<int>(spot.rows), static_cast<int>(spot.cols), accumulate, sums,
            a_zero(g), 0, nullptr, 0, nullptr, 0, nullptr};
  }
  static void store(const GemmKernelSet &set, const core::GemmArgs &g, const TileSpot &s,
                    const int32_t *acc, int64_t ld) {
    store_s32_tile(g, s, acc, ld, set.store_s32);
  }
};

// int8 with the roles turned (GemmArgs::s8_a): A as s8 (a convolution's
// weights, read in place where B has no zero point), B as u8 (s8 shifted by
// 128); B's zero point (in u8 terms) enters through A's row sums, computed
// after packing each block of A. The s8 operand is vpdpbusd's broadcast, so
// the output channels are C's rows and an NCHW dst is stored along its rows.
struct IntegerS8APath : IntegerPath {
  using PackedA = int8_t;
  using PackedB = uint8_t;
  using Microkernel = kernels::GemmS8U8Microkernel;
  static constexpr PackedType packed_a = PackedType::s8_quads;
  static constexpr PackedType packed_b = PackedType::u8_quads;
  static constexpr dlk_dtype packed_a_dtype = DLK_DTYPE_S8;
  static constexpr dlk_dtype packed_b_dtype = DLK_DTYPE_U8;  // no kernel reads B in place
  static constexpr bool col_sums = false;
  static constexpr bool row_sums = true;
  static const GemmKernel<Microkernel> &kernel(const GemmKernelSet &s) { return s.s8u8; }
  static void pack_a(const kernels::GemmPackKernels &k, const PanelSource &s, int64_t count,
                     int64_t kc, int width, int8_t *out) {
    pack_s8_quad_panels(k, s, count, kc, width, out);
  }
  // A's row sums, of the block's k-quad panels.
  static void sum_rows(const kernels::GemmPackKernels &k, const int8_t *a, int64_t rows,
                       int64_t kcp, int mr, int32_t *sums) {
    for (int64_t ir = 0; ir < rows; ir += mr) k.column_sums(a + ir * kcp, kcp / 4, mr, sums + ir);
  }
  // The zero point of B as packed; where it is 0 (u8 B, zero point 0) A's row
  // sums are not computed, and A may be read in place.
  static int32_t b_zero(const core::GemmArgs &g) {
    return g.b_zero_point + (g.b.dtype == DLK_DTYPE_S8 ? 128 : 0);
  }
  static kernels::S32Tile tile(const core::GemmArgs &g, bool in_place, bool first, bool,
                               const TileSpot &spot, Acc *c, int64_t ldc, const int32_t *,
                               const int32_t *a_row_sums) {
    const bool accumulate = !first || (in_place && g.beta != 0.0f);
    return {c, ldc, static_cast<int>(spot.rows), static_cast<int>(spot.cols), accumulate,
            nullptr, 0, 0, a_row_sums, b_zero(g), nullptr, 0, nullptr};
  }
};

// int8 on AMX, as IntegerPath (tdpbusd: u8 A, s8 B in k-quads) and
// IntegerS8APath (tdpbsud: s8 A, u8 B; B's zero point through the row sums of
// A's packed rows), A by rows as AmxBf16Path's.
struct AmxIntegerPath : IntegerPath {
  static constexpr PackedType packed_a = PackedType::u8_rows;
  static const GemmKernel<Microkernel> &kernel(const GemmKernelSet &s) { return s.s32_amx; }
  static void pack_a(const kernels::GemmPackKernels &, const PanelSource &s, int64_t count,
                     int64_t kc, int, uint8_t *out) {
    pack_int8_rows(s, count, kc, s.dtype == DLK_DTYPE_S8 ? 0x80 : 0, out);
  }
};
struct AmxIntegerS8APath : IntegerS8APath {
  static constexpr PackedType packed_a = PackedType::s8_rows;
  static const GemmKernel<Microkernel> &kernel(const GemmKernelSet &s) { return s.s8u8_amx; }
  static void pack_a(const kernels::GemmPackKernels &, const PanelSource &s, int64_t count,
                     int64_t kc, int, int8_t *out) {
    pack_int8_rows(s, count, kc, 0, reinterpret_cast<uint8_t *>(out));
  }
  static void sum_rows(const kernels::GemmPackKernels &, const int8_t *a, int64_t rows,
                       int64_t kcp, int, int32_t *sums) {
    for (int64_t t = 0; t < rows; ++t)
      sums[t] = std::accumulate(a + t * kcp, a + (t + 1) * kcp, int32_t{0});
  }
};

// Whether Path's A is read by rows (the AMX kernels): tile.a_rs is always set,
// and k blocks are whole tile steps of 64 bytes.
template <class Path>
constexpr bool a_by_rows = Path::packed_a == PackedType::bf16_rows ||
                           Path::packed_a == PackedType::u8_rows ||
                           Path::packed_a == PackedType::s8_rows;

}  // namespace dlk::cpu
