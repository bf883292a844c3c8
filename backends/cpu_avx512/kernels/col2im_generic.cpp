// The generic col2im tier: the loops of col2im_tier.inc built for the x86-64
// baseline.
#include "backends/cpu_avx512/kernels/col2im_tier.inc"

namespace dlk::cpu::kernels {

void col2im_add_generic(const ConvShape &s, const float *col, int64_t ld, bool tap_major, int64_t oy0, int64_t oy1, int64_t c0,
                        int64_t c1, const Col2imImage &image) {
  add<PlainSteps>(s, col, ld, tap_major, oy0, oy1, c0, c1, image);
}

}  // namespace dlk::cpu::kernels
