#include "backends/cpu_avx512/conv2d_group_views.hpp"

#include <cstring>
#include <type_traits>

#include "backends/cpu_avx512/conv2d_lowering.hpp"
#include "backends/cpu_avx512/kernels/transpose_kernels.hpp"

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

// The byte offset of group g's first channel of image `image`'s first pixel.
int64_t first_of(const GroupTensor &t, int64_t image, int64_t g) {
  return (image * t.pixels * t.channels + g * t.group_channels) * t.elem;
}

// copy(at, packed_at, run): for each pixel of image `image`, the byte offset
// of group g's run of channels in the tensor, in the compact image, and the
// run's bytes.
template <class Copy>
void for_each_run(const GroupTensor &t, int64_t image, int64_t g, Copy copy) {
  const int64_t run = t.group_channels * t.elem, stride = t.channels * t.elem;
  const int64_t first = first_of(t, image, g);
  for (int64_t p = 0; p < t.pixels; ++p) copy(first + p * stride, p * run, run);
}

}  // namespace

GroupStaging group_staging(const core::Conv2dArgs &a, GroupPass pass, GroupLayout layout) {
  if (a.desc.format != DLK_FORMAT_NHWC) return {};
  const GroupTensor in = input_of(a, pass), out = output_of(a, pass);
  const ConvShape s(a);
  return {ScratchCarver::aligned(static_cast<size_t>(in.pixels * in.group_channels * in.elem)),
          ScratchCarver::aligned(static_cast<size_t>(out.pixels * out.group_channels * out.elem)),
          layout == GroupLayout::nchw
              ? ScratchCarver::aligned(
                    static_cast<size_t>(bytes_of(s.kg * s.taps(), a.desc.weights_type)))
              : 0};
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
                       void *in, GroupLayout layout) {
  const auto *tensor =
      static_cast<const unsigned char *>(pass == GroupPass::forward ? a.src : a.diff_dst);
  const GroupTensor t = input_of(a, pass);
  if (layout == GroupLayout::nchw) {
    kernels::transpose_avx512(tensor + first_of(t, image, g), t.pixels, t.group_channels,
                              t.channels, static_cast<size_t>(t.elem), in, t.pixels);
    return;
  }
  for_each_run(t, image, g, [&](int64_t at, int64_t packed_at, int64_t run) {
    std::memcpy(static_cast<unsigned char *>(in) + packed_at, tensor + at,
                static_cast<size_t>(run));
  });
}

void place_group_output(const core::Conv2dArgs &a, GroupPass pass, int64_t image, int64_t g,
                        const void *out, GroupLayout layout) {
  auto *tensor = static_cast<unsigned char *>(pass == GroupPass::forward ? a.dst : a.diff_src);
  const GroupTensor t = output_of(a, pass);
  if (layout == GroupLayout::nchw) {
    kernels::transpose_avx512(out, t.group_channels, t.pixels, t.pixels,
                              static_cast<size_t>(t.elem), tensor + first_of(t, image, g),
                              t.channels);
    return;
  }
  for_each_run(t, image, g, [&](int64_t at, int64_t packed_at, int64_t run) {
    std::memcpy(tensor + at, static_cast<const unsigned char *>(out) + packed_at,
                static_cast<size_t>(run));
  });
}

void stage_group_weights(const core::Conv2dArgs &a, int64_t g, void *weights) {
  const ConvShape s(a);
  const int64_t khw = s.kh * s.kw, row = bytes_of(s.taps(), a.desc.weights_type);
  const auto *from = static_cast<const unsigned char *>(a.weights) + g * s.kg * row;
  for (int64_t o = 0; o < s.kg; ++o)
    kernels::transpose_avx512(from + o * row, khw, s.cg, s.cg, dlk_dtype_size(a.desc.weights_type),
                              static_cast<unsigned char *>(weights) + o * row, khw);
}

core::Conv2dArgs conv2d_group_as_nchw(const core::Conv2dArgs &a, GroupPass pass, int64_t image,
                                      int64_t g, const void *in, void *out, const void *weights) {
  core::Conv2dArgs v = conv2d_group_of_image(a, pass, image, g, in, out);
  v.desc.format = DLK_FORMAT_NCHW;
  v.weights = weights;
  return v;
}

bool conv2d_group_views_fit(const core::Conv2dArgs &a, GroupPass pass, int threads,
                            size_t kernel_bytes, GroupLayout layout) {
  const GroupStaging staging = group_staging(a, pass, layout);
  return (ScratchCarver::aligned(kernel_bytes) + staging.in_bytes + staging.out_bytes +
          staging.weights_bytes) *
             static_cast<size_t>(team_size(a.desc.n * a.desc.groups, threads)) <=
         kScratchBound;
}

}  // namespace dlk::cpu
