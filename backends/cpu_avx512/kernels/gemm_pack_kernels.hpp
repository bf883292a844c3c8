// Packing micro-kernels (the role of BLIS's packm kernels): the two copies that
// packing a GEMM operand from a unit-stride matrix comes down to. Every packed
// layout (kernels/gemm_microkernel.hpp) is made of 32-bit units, one f32, one
// bf16 k-pair or one int8 k-quad, and a micro-panel is `width` units per
// unit-row, so both kernels write
//
//   out[u * width + t] = unit u (along k) of panel row t    (t < width)
//
// with zeros in the rows past the matrix's edge and in the bytes past k. A
// panel row is a row of A or a column of B. `flip` is xored into every byte
// that comes from the source (0x80 per byte turns s8 into u8 + 128; 0 for
// none); padding stays zero.
//
// The generic versions are portable loops; the AVX-512 ones transpose and
// interleave in registers. gemm_pack.cpp picks the tier's pair (gemm_kernels.cpp)
// when a stride is 1 and falls back to an element loop otherwise.
#pragma once

#include <cstdint>

namespace dlk::cpu::kernels {

// Panel rows contiguous along k (row-major A, column-major B): `rows` rows of
// `bytes` bytes each, row t at src + t * stride bytes; writes ceil(bytes / 4)
// unit-rows.
using PackKContiguous = void (*)(const uint8_t *src, int64_t stride, int rows, int64_t bytes,
                                 int width, uint8_t flip, uint8_t *out);
// Panel rows contiguous along the panel (column-major A, row-major B): `k` lines
// of `cols` elements of `elem_bytes` bytes (4, 2 or 1), line p at src + p *
// stride bytes; 4 / elem_bytes consecutive lines make one unit-row, so
// ceil(k * elem_bytes / 4) unit-rows are written. The columns may fill
// `panels` micro-panels (cols <= panels * width), laid one after another, so
// that a kernel can read each line once, front to back, for all of them.
using PackPanelContiguous = void (*)(const uint8_t *src, int64_t stride, int elem_bytes, int64_t k,
                                     int cols, int width, int panels, uint8_t flip, uint8_t *out);

// The int8 compensation sums of a packed k-quad B panel (`unit_rows` quads of
// `width` columns): sums[t] = sum over the panel's k of column t, wrapping
// modulo 2^32.
using PackColumnSums = void (*)(const int8_t *panel, int64_t unit_rows, int width, int32_t *sums);

// One micro-panel of f32 from bf16 (each widened exactly): `rows` panel rows
// (rows <= width), row t's element p at src[t * outer_stride + p * inner_stride]
// with one of the strides 1; writes out[p * width + t] for p < kc, zeros in the
// rows past `rows`. bf16 GEMM runs the f32 kernel through it where the CPU has
// no vdpbf16ps or where that runs at half the FMAs' rate (cpu_peak.hpp).
using PackBf16AsF32 = void (*)(const uint16_t *src, int64_t outer_stride, int64_t inner_stride,
                               int rows, int64_t kc, int width, float *out);

struct GemmPackKernels {
  PackKContiguous k_contiguous;
  PackPanelContiguous panel_contiguous;
  PackColumnSums column_sums;
  PackBf16AsF32 bf16_as_f32;  // null: the element loop of gemm_pack.cpp
};

void pack_k_contiguous_generic(const uint8_t *src, int64_t stride, int rows, int64_t bytes,
                               int width, uint8_t flip, uint8_t *out);
void pack_panel_contiguous_generic(const uint8_t *src, int64_t stride, int elem_bytes, int64_t k,
                                   int cols, int width, int panels, uint8_t flip, uint8_t *out);
void pack_column_sums_generic(const int8_t *panel, int64_t unit_rows, int width, int32_t *sums);

// AVX-512 F/BW/VL: 16 x 16 unit transposes, byte and word interleaves, sums by
// vpmaddubsw/vpmaddwd (exact: a quad of s8 sums within 16 bits); width <= 32.
void pack_k_contiguous_avx512(const uint8_t *src, int64_t stride, int rows, int64_t bytes,
                              int width, uint8_t flip, uint8_t *out);
void pack_panel_contiguous_avx512(const uint8_t *src, int64_t stride, int elem_bytes, int64_t k,
                                  int cols, int width, int panels, uint8_t flip, uint8_t *out);
void pack_column_sums_avx512(const int8_t *panel, int64_t unit_rows, int width, int32_t *sums);
void pack_bf16_as_f32_avx512(const uint16_t *src, int64_t outer_stride, int64_t inner_stride,
                             int rows, int64_t kc, int width, float *out);

}  // namespace dlk::cpu::kernels
