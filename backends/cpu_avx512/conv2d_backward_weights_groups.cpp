#include "backends/cpu_avx512/conv2d_backward_weights_groups.hpp"

#include <cstring>
#include <optional>

#include "backends/cpu_avx512/conv2d_group_views.hpp"
#include "backends/cpu_avx512/conv2d_lowering.hpp"
#include "backends/cpu_avx512/kernels/conv2d_direct_backward_weights_kernels.hpp"
#include "backends/cpu_avx512/kernels/transpose_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

enum class GroupKernel { none, direct, channel_blocks, direct_parts };

// Output channels [first, last) of a group's view.
core::Conv2dArgs output_channels_of(const core::Conv2dArgs &group, int64_t first, int64_t last) {
  const ConvShape s(group);
  const auto elem = static_cast<int64_t>(dlk_dtype_size(group.desc.src_type));
  core::Conv2dArgs part = group;
  part.desc.k = part.k_per_group = last - first;
  part.diff_dst = static_cast<const unsigned char *>(group.diff_dst) + first * s.pixels() * elem;
  part.diff_weights = static_cast<unsigned char *>(group.diff_weights) + first * s.taps() * elem;
  if (group.diff_bias) part.diff_bias = group.diff_bias + first;
  return part;
}

// A group's parts for the direct kernel: as many as hold up to 16 output
// channels each, the channels shared out evenly (17 as 9 + 8, not 16 + 1).
int64_t direct_parts(int64_t kg) { return (kg + 15) / 16; }

// Whether a group's planes are copied into a batch of their own: over
// several images, or NHWC (whose groups' channels lie among the others').
bool stages_group_batch(const core::Conv2dArgs &a) {
  return a.desc.n > 1 || a.desc.format == DLK_FORMAT_NHWC;
}

// Group g's view for the kernel: its planes of the one NCHW image, or the
// NCHW batch of them in `src` and `diff_dst`.
core::Conv2dArgs group_batch(const core::Conv2dArgs &a, int64_t g, const void *src,
                             const void *diff_dst) {
  core::Conv2dArgs group = conv2d_group_of_image(a, GroupPass::forward, 0, g);
  if (!stages_group_batch(a)) return group;
  group.desc.n = a.desc.n;
  group.desc.format = DLK_FORMAT_NCHW;
  group.src = src, group.diff_dst = diff_dst;
  return group;
}

// Group g's planes of every image copied into `src` and `diff_dst`, an NCHW
// batch of their own: all its input channels, its output channels [first,
// last) (NHWC turned channel-major).
void stage_group_batch(const core::Conv2dArgs &a, int64_t g, int64_t first, int64_t last,
                       unsigned char *src, unsigned char *diff_dst) {
  const ConvShape s(a);
  const size_t elem = dlk_dtype_size(a.desc.src_type);
  const int64_t in = s.cg * s.h * s.w, out = (last - first) * s.pixels();
  const auto *from_src = static_cast<const unsigned char *>(a.src);
  const auto *from_diff_dst = static_cast<const unsigned char *>(a.diff_dst);
  const auto bytes = [elem](int64_t elements) { return static_cast<size_t>(elements) * elem; };
  for (int64_t image = 0; image < s.n; ++image) {
    const unsigned char *image_src = from_src + bytes(s.src_offset(image, g));
    const unsigned char *image_diff_dst =
        from_diff_dst + bytes(s.dst_offset(image, g) + first * s.dst_channel_stride());
    if (s.nhwc) {
      kernels::transpose_avx512(image_src, s.h * s.w, s.cg, s.c, elem, src + bytes(image * in),
                                s.h * s.w);
      kernels::transpose_avx512(image_diff_dst, s.pixels(), last - first, s.k, elem,
                                diff_dst + bytes(image * out), s.pixels());
      continue;
    }
    std::memcpy(src + bytes(image * in), image_src, bytes(in));
    std::memcpy(diff_dst + bytes(image * out), image_diff_dst, bytes(out));
  }
}

GroupKernel group_backward_weights_kernel(const core::Conv2dArgs &a, core::CpuIsa isa) {
  const dlk_conv2d_desc &d = a.desc;
  // NHWC: one image's groups of more than 16 output channels keep the GEMM,
  // which reads each pixel's channels where they lie, where the transposes
  // weigh against few products (ResNeXt-50 conv5, 32 a group, 49 pixels:
  // 0.61-1.02x the GEMM at batch 1, 1.20-1.52x at batch 32; Zen 4, 1 and 2
  // threads, f32 and bf16).
  if (isa != core::CpuIsa::avx512 || d.groups <= 1 || lowers_to_amx_gemm(a, isa) ||
      (d.format == DLK_FORMAT_NHWC && d.n == 1 && a.k_per_group > 16))
    return GroupKernel::none;
  const core::Conv2dArgs group = group_batch(a, 0, nullptr, nullptr);
  if (kernels::conv2d_direct_backward_weights_applies(group)) return GroupKernel::direct;
  if (kernels::conv2d_channel_blocks_backward_weights_applies(group, 1, /*of_group=*/true))
    return GroupKernel::channel_blocks;
  const int64_t kg = a.k_per_group, parts = direct_parts(kg);
  if (kernels::conv2d_direct_backward_weights_applies(
          output_channels_of(group, 0, (kg + parts - 1) / parts)))
    return GroupKernel::direct_parts;
  return GroupKernel::none;
}

// Its tasks (groups x parts), and a thread's scratch: the kernel's plan, the
// group's batch where it is staged (of a part's output channels), and NHWC's
// gradient in OIHW, turned into OHWI after.
struct GroupBackwardWeights {
  GroupBackwardWeights(const core::Conv2dArgs &a, GroupKernel kernel, int threads)
      : parts(kernel == GroupKernel::direct_parts ? direct_parts(a.k_per_group) : 1) {
    const ConvShape s(a);
    const int64_t channels = (s.kg + parts - 1) / parts;  // of the largest part
    const core::Conv2dArgs part =
        output_channels_of(group_batch(a, 0, nullptr, nullptr), 0, channels);
    if (kernel == GroupKernel::channel_blocks) blocks.emplace(part, 1);
    else direct.emplace(part, 1);
    kernel_bytes = ScratchCarver::aligned(direct ? direct->bytes : blocks->bytes);
    const auto elem = dlk_dtype_size(a.desc.src_type);
    if (stages_group_batch(a)) {
      src_bytes = ScratchCarver::aligned(static_cast<size_t>(s.n * s.cg * s.h * s.w) * elem);
      diff_dst_bytes = ScratchCarver::aligned(static_cast<size_t>(s.n * s.kg * s.pixels()) * elem);
    }
    if (s.nhwc)
      oihw_bytes = ScratchCarver::aligned(static_cast<size_t>(channels * s.taps()) * elem);
    thread_bytes = kernel_bytes + src_bytes + diff_dst_bytes + oihw_bytes;
    team = team_size(a.desc.groups * parts, threads);
  }
  int64_t parts;
  std::optional<kernels::DirectBackwardWeightsPlan> direct;
  std::optional<kernels::ChannelBlocksBackwardWeightsPlan> blocks;
  size_t kernel_bytes = 0, src_bytes = 0, diff_dst_bytes = 0, oihw_bytes = 0, thread_bytes = 0;
  int team = 1;
};

}  // namespace

bool conv2d_backward_weights_groups_apply(const core::Conv2dArgs &a, core::CpuIsa isa,
                                          int threads) {
  const GroupKernel kernel = group_backward_weights_kernel(a, isa);
  return kernel != GroupKernel::none &&
         GroupBackwardWeights(a, kernel, threads).thread_bytes * static_cast<size_t>(threads) <=
             kScratchBound;
}

std::string conv2d_backward_weights_groups(const core::Conv2dArgs &a, core::CpuIsa isa,
                                           int threads, Scratch &scratch) {
  const GroupBackwardWeights plan(a, group_backward_weights_kernel(a, isa), threads);
  auto *base = static_cast<unsigned char *>(
      scratch.get(plan.thread_bytes * static_cast<size_t>(plan.team),
                  "dlk_conv2d_backward_weights",
                  "each thread's weight-gradient kernel's sums and padded image, and copy of "
                  "a group's batch"));
  const int64_t kg = a.k_per_group;
  parallel_for(a.desc.groups * plan.parts, plan.team, [&](int64_t task, int thread) {
    const int64_t g = task / plan.parts, part = task % plan.parts;
    unsigned char *own = base + plan.thread_bytes * static_cast<size_t>(thread);
    unsigned char *src = own + plan.kernel_bytes, *diff_dst = src + plan.src_bytes;
    unsigned char *oihw = diff_dst + plan.diff_dst_bytes;
    const int64_t first = kg * part / plan.parts, last = kg * (part + 1) / plan.parts;
    core::Conv2dArgs view = output_channels_of(group_batch(a, g, src, diff_dst), first, last);
    if (stages_group_batch(a)) {
      stage_group_batch(a, g, first, last, src, diff_dst);
      view.diff_dst = diff_dst;
    }
    void *rows = view.diff_weights;
    if (plan.oihw_bytes) view.diff_weights = oihw;
    if (plan.direct)
      kernels::conv2d_direct_backward_weights_avx512(view, *plan.direct, own);
    else
      kernels::conv2d_channel_blocks_backward_weights_avx512(view, *plan.blocks, own);
    if (!plan.oihw_bytes) return;
    // Each output channel's c x kh kw (OIHW) turned into kh kw x c (OHWI).
    const ConvShape s(a);
    const size_t elem = dlk_dtype_size(a.desc.src_type), row = static_cast<size_t>(s.taps()) * elem;
    const int64_t khw = s.kh * s.kw;
    for (int64_t o = 0; o < last - first; ++o)
      kernels::transpose_avx512(oihw + static_cast<size_t>(o) * row, s.cg, khw, khw, elem,
                                static_cast<unsigned char *>(rows) + static_cast<size_t>(o) * row,
                                s.cg);
  });
  return plan.direct ? "avx512:group_direct_backward_weights_f32"
                     : kernels::conv2d_channel_blocks_backward_weights_name(
                           a.desc.src_type, plan.blocks->pairs,
                           kernels::ChannelBlocksRoute::groups);
}

}  // namespace dlk::cpu
