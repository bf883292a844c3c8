// The B operand of a convolution's GEMM, C (kg x pixels) = weights (kg x taps)
// * im2col (taps x pixels), written straight into the packed micro-panels the
// blocked GEMM asks for (gemm_pack.hpp's BPanelPacker): no im2col matrix exists
// in memory, not even a band of it. Element (tap, pixel) is the src element the
// tap reads for that output pixel, 0 where it falls in the padding.
#pragma once

#include "backends/cpu_avx512/conv2d_lowering.hpp"
#include "backends/cpu_avx512/gemm_pack.hpp"

namespace dlk::cpu {

class Im2colPanelPacker final : public BPanelPacker {
 public:
  // B of group `group`; GEMM batch entry b is image b, and column j is output
  // pixel j. src is the whole tensor (f32, f16 or bf16).
  Im2colPanelPacker(const ConvShape &s, const void *src, dlk_dtype dtype, int64_t group)
      : s_(s), src_(src), dtype_(dtype), group_(group) {}

  void pack(int64_t batch, int64_t p0, int64_t kc, int64_t j0, int64_t cols,
            const PackedPanel &panel) const override;

 private:
  const ConvShape &s_;
  const void *src_;
  dlk_dtype dtype_;
  int64_t group_;
};

}  // namespace dlk::cpu
