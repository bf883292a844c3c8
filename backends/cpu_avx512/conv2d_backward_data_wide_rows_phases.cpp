#include "backends/cpu_avx512/conv2d_backward_data_wide_rows_phases.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "backends/cpu_avx512/conv2d_data_phases.hpp"
#include "backends/cpu_avx512/conv2d_group_views.hpp"
#include "backends/cpu_avx512/conv2d_lowering.hpp"
#include "backends/cpu_avx512/kernels/conv2d_direct_kernels.hpp"
#include "backends/cpu_avx512/kernels/interleave_kernels.hpp"

namespace dlk::cpu {
namespace {

// Phase p of one group's backward data (`group`: an image's group as an NCHW
// convolution of its own) as a forward convolution on the wide-row kernel:
// the group's diff_dst planes in, padded above and left by -offset (below
// and right as far as the phase's outputs read), `weights` (OIHW, the
// group's cg output and kg input channels), the phase's compact planes out.
core::Conv2dArgs phase_of(const core::Conv2dArgs &group, const DataPhases &phases, int p,
                          const void *weights, void *out) {
  const int py = p / 2, px = p % 2;
  core::Conv2dArgs t;
  t.desc = group.desc;
  t.desc.c = group.desc.k, t.desc.k = group.desc.c;
  t.desc.h = group.oh, t.desc.w = group.ow;
  t.desc.kh = phases.rows.taps[py], t.desc.kw = phases.cols.taps[px];
  t.desc.stride_h = t.desc.stride_w = 1;
  t.desc.pad_h = -phases.rows.offset, t.desc.pad_w = -phases.cols.offset;
  t.desc.relu = 0;
  t.desc.dst_type = group.desc.src_type;
  t.c_per_group = group.desc.k, t.k_per_group = group.desc.c;
  t.oh = phases.rows.outputs[py], t.ow = phases.cols.outputs[px];
  t.src = group.diff_dst, t.weights = weights, t.dst = out;
  return t;
}

// A thread's scratch for one group: the phases' weights and compact planes
// (elements from weights_at[p] and planes_at[p]), the group's diff_dst padded
// once for all four phases (`shape`: the phases share their padding above and
// left; padded per phase, the copies took a fifth of ResNeXt-50 conv3_1's
// f32 time and the bf16 pairing as long), then the wide-row kernel's own (the
// largest phase's plan). source_taps: the forward's tap that each of a phase's
// taps reads.
struct GroupPhases {
  GroupPhases(const core::Conv2dArgs &group, const DataPhases &phases) {
    const int64_t elem = static_cast<int64_t>(dlk_dtype_size(group.desc.src_type));
    int64_t weights = 0, planes = 0;
    for (int p = 0; p < 4; ++p) {
      source_taps[p] = phases.source_taps(group, p);
      weights_at[p] = weights, planes_at[p] = planes;
      const core::Conv2dArgs t = phase_of(group, phases, p, nullptr, nullptr);
      weights += t.desc.k * t.desc.c * static_cast<int64_t>(source_taps[p].size());
      planes += t.desc.k * t.oh * t.ow;
      const kernels::WideRowsPlan own(t, 1);
      shape.rows = std::max(shape.rows, own.hp);
      shape.pitch = std::max(shape.pitch, own.wp);
      shape.kw = std::max(shape.kw, t.desc.kw);
    }
    // A plan depends on the phase's shapes alone, the same for every group.
    plans.reserve(4);
    for (int p = 0; p < 4; ++p) {
      plans.emplace_back(phase_of(group, phases, p, nullptr, nullptr), 1, false, shape);
      kernel_bytes = std::max(kernel_bytes, plans.back().bytes);
    }
    // The phases share the padded image: one shape, one size.
    image_bytes =
        ScratchCarver::aligned(static_cast<size_t>(plans[0].image_floats) * sizeof(float));
    weights_bytes = ScratchCarver::aligned(static_cast<size_t>(weights * elem));
    planes_bytes = ScratchCarver::aligned(static_cast<size_t>(planes * elem));
  }
  size_t bytes() const { return weights_bytes + planes_bytes + image_bytes + kernel_bytes; }
  std::array<std::vector<int64_t>, 4> source_taps;
  std::array<int64_t, 4> weights_at{}, planes_at{};
  kernels::WideRowsImageShape shape;
  std::vector<kernels::WideRowsPlan> plans;
  size_t weights_bytes = 0, planes_bytes = 0, image_bytes = 0, kernel_bytes = 0;
};

template <class T>
void run_group(const core::Conv2dArgs &group, const DataPhases &phases, const GroupPhases &layout,
               void *own) {
  auto *bytes = static_cast<unsigned char *>(own);
  T *weights = reinterpret_cast<T *>(bytes);
  T *planes = reinterpret_cast<T *>(bytes + layout.weights_bytes);
  auto *image = reinterpret_cast<float *>(bytes + layout.weights_bytes + layout.planes_bytes);
  void *kernel = bytes + layout.weights_bytes + layout.planes_bytes + layout.image_bytes;
  const auto *w = static_cast<const T *>(group.weights);
  const int64_t kg = group.desc.k, cg = group.desc.c, taps = group.desc.kh * group.desc.kw;
  for (int p = 0; p < 4; ++p) {
    const std::vector<int64_t> &from = layout.source_taps[p];
    const auto n = static_cast<int64_t>(from.size());
    T *turned = weights + layout.weights_at[p];
    for (int64_t ci = 0; ci < cg; ++ci)
      for (int64_t kk = 0; kk < kg; ++kk)
        for (int64_t t = 0; t < n; ++t)
          turned[(ci * kg + kk) * n + t] = w[(kk * cg + ci) * taps + from[static_cast<size_t>(t)]];
    const core::Conv2dArgs t = phase_of(group, phases, p, turned, planes + layout.planes_at[p]);
    kernels::conv2d_wide_rows_avx512(t, 1, layout.plans[static_cast<size_t>(p)], kernel,
                                     {image, p > 0});
  }
  const int64_t h = group.desc.h, width = group.desc.w;
  auto *diff_src = static_cast<T *>(group.diff_src);
  for (int64_t ci = 0; ci < cg; ++ci)
    for (int64_t y = 0; y < h; ++y) {
      const int64_t py = y % 2, rows = phases.rows.outputs[py], i = y / 2;
      const T *even = planes + layout.planes_at[2 * py] + (ci * rows + i) * phases.cols.outputs[0];
      const T *odd =
          planes + layout.planes_at[2 * py + 1] + (ci * rows + i) * phases.cols.outputs[1];
      kernels::interleave_columns_avx512(even, odd, width, sizeof(T),
                                         diff_src + (ci * h + y) * width);
    }
}

}  // namespace

bool backward_data_wide_rows_phases_apply(const core::Conv2dArgs &a, core::CpuIsa isa,
                                          int threads) {
  const dlk_conv2d_desc &d = a.desc;
  if (d.groups <= 1 || a.c_per_group > 16 || a.k_per_group > 16 ||
      isa != core::CpuIsa::avx512 ||
      (d.src_type != DLK_DTYPE_F32 && d.src_type != DLK_DTYPE_BF16) || lowers_to_amx_gemm(a, isa))
    return false;
  const DataPhases phases(a);
  if (!phases.valid || phases.rows.offset > 0 || phases.cols.offset > 0) return false;
  const core::Conv2dArgs group =
      conv2d_group_as_nchw(a, GroupPass::backward_data, 0, 0, nullptr, nullptr, nullptr);
  for (int p = 0; p < 4; ++p) {
    core::Conv2dArgs t = phase_of(group, phases, p, nullptr, nullptr);
    // The rule's floor of two taps is the GEMM's edge over one; a phase of
    // one tap is as cheap as the other phases' rows.
    if (t.desc.kh * t.desc.kw < 2) t.desc.kw = 2;
    if (!kernels::conv2d_wide_rows_applies(t, 1, false, /*of_group=*/true)) return false;
  }
  return conv2d_group_views_fit(a, GroupPass::backward_data, threads,
                                GroupPhases(group, phases).bytes(), GroupLayout::nchw);
}

void backward_data_wide_rows_phases(const core::Conv2dArgs &a, int threads, Scratch &scratch) {
  const DataPhases phases(a);
  const core::Conv2dArgs first =
      conv2d_group_as_nchw(a, GroupPass::backward_data, 0, 0, nullptr, nullptr, nullptr);
  const GroupPhases layout(first, phases);
  const bool f32 = a.desc.src_type == DLK_DTYPE_F32;
  for_each_group_of_image(
      a, GroupPass::backward_data, threads, layout.bytes(), scratch, "dlk_conv2d_backward_data",
      "each thread's phase weights and planes and padded diff_dst of a group",
      [&](const core::Conv2dArgs &group, void *own) {
        if (f32) run_group<float>(group, phases, layout, own);
        else run_group<uint16_t>(group, phases, layout, own);
      },
      GroupLayout::nchw);
}

}  // namespace dlk::cpu
