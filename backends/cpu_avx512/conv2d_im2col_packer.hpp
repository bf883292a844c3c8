// The im2col matrix of a convolution as the B operand of its GEMMs, written
// straight into the packed micro-panels the blocked GEMM asks for (gemm_pack.hpp's
// BPanelPacker): no im2col matrix exists in memory, not even a band of it.
// Element (tap, pixel) is the src element the tap reads for that output pixel, 0
// where it falls in the padding (int8: the zero point). The int8 forward, and
// the float forward with pixels as rows, pack it as the GEMM's A instead
// (APanelPacker), transposed.
//   forward:          C (kg x pixels) = weights (kg x taps) * im2col (taps x pixels)
//   forward, int8 or pixels as rows:
//                     C (pixels x kg) = im2col^T (pixels x taps) * weights^T
//   backward-weights: C (kg x taps)   = diff_dst (kg x pixels) * im2col^T (pixels x taps)
#pragma once

#include "backends/cpu_avx512/conv2d_lowering.hpp"
#include "backends/cpu_avx512/gemm_pack.hpp"
#include "backends/cpu_avx512/kernels/im2col_kernels.hpp"

namespace dlk::cpu {

// Whether forward panels of NHWC `s` may be packed from pixel rows staged whole
// (one group, no horizontal dilation), decided once per packer; those with few
// channels or straddling output rows are, where the staged rows fit the stage.
bool nhwc_rows_stageable(const ConvShape &s);

// The tier's NCHW panel kernels (kernels/im2col_kernels.hpp): the AVX-512
// tier's, or none.
const kernels::Im2colNchwKernels &im2col_nchw_kernels(core::CpuIsa isa);

class Im2colPanelPacker final : public BPanelPacker {
 public:
  // B of group `group`; GEMM batch entry b is image b, and column j is output
  // pixel j. src is the whole tensor (f32, f16 or bf16); `kernels` the tier's
  // packing kernels (NHWC packs through them), `nchw` its NCHW panel kernels.
  // Panels are f32, or bf16 k-pairs when the GEMM runs the bf16 kernel (bf16
  // src only).
  Im2colPanelPacker(const ConvShape &s, const void *src, dlk_dtype dtype, int64_t group,
                    const kernels::GemmPackKernels &kernels,
                    const kernels::Im2colNchwKernels &nchw)
      : s_(s), src_(src), dtype_(dtype), group_(group), kernels_(kernels), nchw_(nchw),
        stageable_(nhwc_rows_stageable(s)) {}

  void pack(int64_t batch, int64_t p0, int64_t kc, int64_t j0, int64_t cols,
            const PackedPanel &panel) const override;

 private:
  const ConvShape &s_;
  const void *src_;
  dlk_dtype dtype_;
  int64_t group_;
  const kernels::GemmPackKernels &kernels_;
  const kernels::Im2colNchwKernels &nchw_;
  bool stageable_;
};

// A = im2col^T (pixels x taps) of one group, for the forward passes that take
// pixels as the GEMM's rows: dst (pixels x kg) = A * weights^T. GEMM batch
// entry b is image b, row i output pixel i. Writes the panels the GEMM asks
// for: int8's u8 k-quads (src u8 or s8, s8 shifted by 128 as the GEMM packs
// A, padding taps holding `zero_point`, the GEMM's zero point of A, so that
// they add nothing), bf16 k-pairs (bf16 src), or f32 (f32, f16 or bf16 src,
// padding 0); `kernels` and `nchw` as for Im2colPanelPacker.
class Im2colAPanelPacker final : public APanelPacker {
 public:
  Im2colAPanelPacker(const ConvShape &s, const void *src, dlk_dtype dtype, int32_t zero_point,
                     int64_t group, const kernels::GemmPackKernels &kernels,
                     const kernels::Im2colNchwKernels &nchw)
      : s_(s), src_(src), dtype_(dtype), zero_point_(zero_point), group_(group),
        kernels_(kernels), nchw_(nchw), stageable_(nhwc_rows_stageable(s)) {}

  void pack(int64_t batch, int64_t i0, int64_t rows, int64_t p0, int64_t kc,
            const PackedPanel &first) const override;
  // int8 NHWC: a pixel's taps are runs of src's channels.
  bool writes_rows() const override {
    return s_.nhwc && (dtype_ == DLK_DTYPE_U8 || dtype_ == DLK_DTYPE_S8);
  }

 private:
  const ConvShape &s_;
  const void *src_;
  dlk_dtype dtype_;
  int32_t zero_point_;
  int64_t group_;
  const kernels::GemmPackKernels &kernels_;
  const kernels::Im2colNchwKernels &nchw_;
  bool stageable_;
};

// The int8 forward's im2col (taps x pixels) as the B of the GEMM that takes
// the output channels as rows (GemmArgs::s8_a, NCHW): the u8 k-quad panels
// `pixels` writes as an A, a B micro-panel being laid out as an A one with
// columns for rows.
class Im2colU8QuadsBPanelPacker final : public BPanelPacker {
 public:
  explicit Im2colU8QuadsBPanelPacker(const Im2colAPanelPacker &pixels) : pixels_(pixels) {}
  void pack(int64_t batch, int64_t p0, int64_t kc, int64_t j0, int64_t cols,
            const PackedPanel &panel) const override {
    pixels_.pack(batch, j0, cols, p0, kc, panel);
  }
  // All the panels in one call, as the A packer writes them.
  void pack_panels(int64_t batch, int64_t p0, int64_t kc, int64_t j0, int64_t cols,
                   const PackedPanel &first, int64_t) const override {
    pixels_.pack(batch, j0, cols, p0, kc, first);
  }

 private:
  const Im2colAPanelPacker &pixels_;
};

// B = im2col^T (pixels x taps) of one group, for backward-weights; GEMM batch
// entry b is image b, row p its output pixel p. With `ones_column`, B has one
// more column (index taps) of ones, so that C's last column is the sum of
// diff_dst over the pixels: diff_bias comes out of the same GEMM. Writes f32
// panels, or bf16 k-pairs (bf16 src) where the GEMM asks for them; `kernels`
// are the tier's packing kernels (NCHW transposes through them). The GEMM's
// column j is B's column first_column + j (a thread's share of the columns).
class Im2colTransposePanelPacker final : public BPanelPacker {
 public:
  Im2colTransposePanelPacker(const ConvShape &s, const void *src, dlk_dtype dtype, int64_t group,
                             bool ones_column, const kernels::GemmPackKernels &kernels,
                             int64_t first_column = 0)
      : s_(s), src_(src), dtype_(dtype), group_(group), ones_column_(ones_column),
        kernels_(kernels), first_column_(first_column) {}

  int64_t columns() const { return s_.taps() + (ones_column_ ? 1 : 0); }
  void pack(int64_t batch, int64_t p0, int64_t kc, int64_t j0, int64_t cols,
            const PackedPanel &panel) const override;

 private:
  const ConvShape &s_;
  const void *src_;
  dlk_dtype dtype_;
  int64_t group_;
  bool ones_column_;
  const kernels::GemmPackKernels &kernels_;
  int64_t first_column_;
};

}  // namespace dlk::cpu
