#include "backends/cpu_avx512/conv2d_group_views.hpp"

#include <type_traits>

#include "backends/cpu_avx512/conv2d_lowering.hpp"

namespace dlk::cpu {

core::Conv2dArgs conv2d_group_of_image(const core::Conv2dArgs &a, int64_t image, int64_t g) {
  const ConvShape s(a);
  const auto bytes = [](int64_t elements, dlk_dtype type) {
    return elements * static_cast<int64_t>(dlk_dtype_size(type));
  };
  const auto moved = [](auto *p, int64_t by) {
    using Byte = std::conditional_t<std::is_const_v<std::remove_pointer_t<decltype(p)>>,
                                    const unsigned char, unsigned char>;
    return p ? static_cast<Byte *>(p) + by : nullptr;
  };
  const dlk_conv2d_desc &d = a.desc;
  const int64_t src = bytes(s.src_offset(image, g), d.src_type);
  const int64_t dst = bytes(s.dst_offset(image, g), d.dst_type);
  core::Conv2dArgs v = a;
  v.desc.n = 1, v.desc.c = s.cg, v.desc.k = s.kg, v.desc.groups = 1;
  v.c_per_group = s.cg, v.k_per_group = s.kg;
  if (d.scales && d.scale_mode == DLK_SCALE_PER_CHANNEL) v.desc.scales = d.scales + g * s.kg;
  v.src = moved(a.src, src);
  v.dst = moved(a.dst, dst);
  // Backward data takes one float type for all its tensors.
  v.diff_src = moved(a.diff_src, src);
  v.diff_dst = moved(a.diff_dst, bytes(s.dst_offset(image, g), d.src_type));
  v.weights = moved(a.weights, bytes(g * s.kg * s.taps(), d.weights_type));
  if (a.bias) v.bias = a.bias + g * s.kg;
  if (a.channel_multipliers) v.channel_multipliers = a.channel_multipliers + g * s.kg;
  return v;
}

bool conv2d_group_views_fit(const core::Conv2dArgs &a, int threads, size_t bytes) {
  return ScratchCarver::aligned(bytes) *
             static_cast<size_t>(team_size(a.desc.n * a.desc.groups, threads)) <=
         kScratchBound;
}

}  // namespace dlk::cpu
