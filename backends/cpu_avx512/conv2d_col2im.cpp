#include "backends/cpu_avx512/conv2d_col2im.hpp"

namespace dlk::cpu {

void col2im_add(const ConvShape &s, const float *col, int64_t ld, bool tap_major, int64_t oy0,
                int64_t oy1, int64_t c0, int64_t c1, const kernels::Col2imImage &image,
                core::CpuIsa isa) {
  const kernels::Col2imAdd add = isa == core::CpuIsa::avx512 ? kernels::col2im_add_avx512
                                 : isa == core::CpuIsa::avx2 ? kernels::col2im_add_avx2
                                                             : kernels::col2im_add_generic;
  add(s, col, ld, tap_major, oy0, oy1, c0, c1, image);
}

}  // namespace dlk::cpu
