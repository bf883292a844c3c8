#include "backends/cpu_avx512/conv2d_group_views.hpp"

#include <cstring>
#include <type_traits>

#include "backends/cpu_avx512/conv2d_lowering.hpp"

namespace dlk::cpu {
namespace {

int64_t bytes_of(int64_t elements, dlk_dtype type) {
  return elements * static_cast<int64_t>(dlk_dtype_size(type));
}

// An NHWC tensor of `pass` as a group sees it: element bytes, channels of all
// groups and of one, pixels of an image. (Backward data takes one float type
// for all its tensors.)
struct GroupTensor {
  int64_t elem, channels, group_channels, pixels;
};
GroupTensor input_of(const core::Conv2dArgs &a, GroupPass pass) {
  const ConvShape s(a);
  const int64_t elem = bytes_of(1, a.desc.src_type);
  return pass == GroupPass::forward ? GroupTensor{elem, s.c, s.cg, s.h * s.w}
                                    : GroupTensor{elem, s.k, s.kg, s.oh * s.ow};
}
GroupTensor output_of(const core::Conv2dArgs &a, GroupPass pass) {
  const ConvShape s(a);
  return pass == GroupPass::forward
             ? GroupTensor{bytes_of(1, a.desc.dst_type), s.k, s.kg, s.oh * s.ow}
             : GroupTensor{bytes_of(1, a.desc.src_type), s.c, s.cg, s.h * s.w};
}

// copy(at, packed_at, run): for each pixel of image `image`, the byte offset
// of group g's run of channels in the tensor, in the compact image, and the
// run's bytes.
template <class Copy>
void for_each_run(const GroupTensor &t, int64_t image, int64_t g, Copy copy) {
  const int64_t run = t.group_channels * t.elem, stride = t.channels * t.elem;
  const int64_t first = (image * t.pixels * t.channels + g * t.group_channels) * t.elem;
  for (int64_t p = 0; p < t.pixels; ++p) copy(first + p * stride, p * run, run);
}

}  // namespace

GroupStaging group_staging(const core::Conv2dArgs &a, GroupPass pass) {
  if (a.desc.format != DLK_FORMAT_NHWC) return {};
  const GroupTensor in = input_of(a, pass), out = output_of(a, pass);
  return {ScratchCarver::aligned(static_cast<size_t>(in.pixels * in.group_channels * in.elem)),
          ScratchCarver::aligned(static_cast<size_t>(out.pixels * out.group_channels * out.elem))};
}

core::Conv2dArgs conv2d_group_of_image(const core::Conv2dArgs &a, GroupPass pass, int64_t image,
                                       int64_t g, const void *in, void *out) {
  const ConvShape s(a);
  const auto moved = [](auto *p, int64_t by) {
    using Byte = std::conditional_t<std::is_const_v<std::remove_pointer_t<decltype(p)>>,
                                    const unsigned char, unsigned char>;
    return p ? static_cast<Byte *>(p) + by : nullptr;
  };
  const dlk_conv2d_desc &d = a.desc;
  core::Conv2dArgs v = a;
  v.desc.n = 1, v.desc.c = s.cg, v.desc.k = s.kg, v.desc.groups = 1;
  v.c_per_group = s.cg, v.k_per_group = s.kg;
  if (d.scales && d.scale_mode == DLK_SCALE_PER_CHANNEL) v.desc.scales = d.scales + g * s.kg;
  v.weights = moved(a.weights, bytes_of(g * s.kg * s.taps(), d.weights_type));
  v.diff_weights = moved(a.diff_weights, bytes_of(g * s.kg * s.taps(), d.weights_type));
  if (a.bias) v.bias = a.bias + g * s.kg;
  if (a.diff_bias) v.diff_bias = a.diff_bias + g * s.kg;
  if (a.channel_multipliers) v.channel_multipliers = a.channel_multipliers + g * s.kg;
  if (d.format == DLK_FORMAT_NHWC) {
    (pass == GroupPass::forward ? v.src : v.diff_dst) = in;
    (pass == GroupPass::forward ? v.dst : v.diff_src) = out;
    return v;
  }
  const int64_t src = s.src_offset(image, g), dst = s.dst_offset(image, g);
  v.src = moved(a.src, bytes_of(src, d.src_type));
  v.dst = moved(a.dst, bytes_of(dst, d.dst_type));
  // Backward data takes one float type for all its tensors.
  v.diff_src = moved(a.diff_src, bytes_of(src, d.src_type));
  v.diff_dst = moved(a.diff_dst, bytes_of(dst, d.src_type));
  return v;
}

void stage_group_input(const core::Conv2dArgs &a, GroupPass pass, int64_t image, int64_t g,
                       void *in) {
  const auto *tensor =
      static_cast<const unsigned char *>(pass == GroupPass::forward ? a.src : a.diff_dst);
  for_each_run(input_of(a, pass), image, g, [&](int64_t at, int64_t packed_at, int64_t run) {
    std::memcpy(static_cast<unsigned char *>(in) + packed_at, tensor + at,
                static_cast<size_t>(run));
  });
}

void place_group_output(const core::Conv2dArgs &a, GroupPass pass, int64_t image, int64_t g,
                        const void *out) {
  auto *tensor = static_cast<unsigned char *>(pass == GroupPass::forward ? a.dst : a.diff_src);
  for_each_run(output_of(a, pass), image, g, [&](int64_t at, int64_t packed_at, int64_t run) {
    std::memcpy(tensor + at, static_cast<const unsigned char *>(out) + packed_at,
                static_cast<size_t>(run));
  });
}

bool conv2d_group_views_fit(const core::Conv2dArgs &a, GroupPass pass, int threads,
                            size_t kernel_bytes) {
  const GroupStaging staging = group_staging(a, pass);
  return (ScratchCarver::aligned(kernel_bytes) + staging.in_bytes + staging.out_bytes) *
             static_cast<size_t>(team_size(a.desc.n * a.desc.groups, threads)) <=
         kScratchBound;
}

}  // namespace dlk::cpu
