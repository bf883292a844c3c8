// Packing of GEMM operands into the micro-panels the micro-kernels read
// (kernels/gemm_microkernel.hpp): any supported dtype and any element strides in,
// the micro-kernel's operand type out. Packing is where dtypes and layouts end, so
// one micro-kernel serves every layout, transpose and input type.
#pragma once

#include <cstdint>

#include "core/backend.hpp"

namespace dlk::cpu {

// A block of an operand seen as `count` panel rows ("outer": the m rows of A or
// the n columns of B) of `kc` elements each ("inner": along k). Element (o, p)
// is at ptr + o * outer_stride + p * inner_stride, in elements of dtype.
struct PanelSource {
  const void *ptr = nullptr;
  dlk_dtype dtype = DLK_DTYPE_F32;
  int64_t outer_stride = 0;
  int64_t inner_stride = 0;
  int32_t zero_point = 0;  // subtracted from int8 elements
};

// The block of A rows [i0, i0 + mc) x k [p0, p0 + kc) of batch entry `batch`.
PanelSource a_block(const core::GemmArgs &g, int64_t batch, int64_t i0, int64_t p0);
// The block of B k [p0, p0 + kc) x columns [j0, j0 + nc) of batch entry `batch`.
PanelSource b_block(const core::GemmArgs &g, int64_t batch, int64_t p0, int64_t j0);

// Packs ceil(count / width) micro-panels of kc x width, each stored p-major
// (out[p * width + t]), one after another; rows past count are zero.
// f32, f16 or bf16 in.
void pack_f32_panels(const PanelSource &src, int64_t count, int64_t kc, int width, float *out);
// u8 or s8 in, minus the zero point.
void pack_s16_panels(const PanelSource &src, int64_t count, int64_t kc, int width, int16_t *out);

}  // namespace dlk::cpu
