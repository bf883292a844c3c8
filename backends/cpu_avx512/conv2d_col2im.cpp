#include "backends/cpu_avx512/conv2d_col2im.hpp"

#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {

void col2im_add(const ConvShape &s, const float *col, bool tap_major, int64_t oy0, int64_t oy1,
                const kernels::Col2imImage &image, core::CpuIsa isa, int threads) {
  const kernels::Col2imAdd add = isa == core::CpuIsa::avx512 ? kernels::col2im_add_avx512
                                 : isa == core::CpuIsa::avx2 ? kernels::col2im_add_avx2
                                                             : kernels::col2im_add_generic;
  // Tasks own disjoint channels, so the scattered sums never race.
  const int64_t tasks = team_size(s.cg, threads);
  parallel_for(tasks, threads, [&](int64_t task, int) {
    add(s, col, tap_major, oy0, oy1, s.cg * task / tasks, s.cg * (task + 1) / tasks, image);
  });
}

}  // namespace dlk::cpu
