#include "backends/fpga_sim/conv_lowering.hpp"

#include "backends/fpga_sim/element_io.hpp"

namespace dlk::fpga_sim {
namespace {

// Calls visit(pixel, tap, y, x) for every tap of every output pixel whose input
// position (y, x) lies inside the image.
template <class Visit>
void for_each_tap(const ConvGeometry &s, Visit visit) {
  for (int64_t oy = 0; oy < s.oh; ++oy)
    for (int64_t ox = 0; ox < s.ow; ++ox)
      for (int64_t r = 0; r < s.kh; ++r) {
        const int64_t y = oy * s.stride_h - s.pad_h + r * s.dilation_h;
        if (y < 0 || y >= s.h) continue;
        for (int64_t q = 0; q < s.kw; ++q) {
          const int64_t x = ox * s.stride_w - s.pad_w + q * s.dilation_w;
          if (x < 0 || x >= s.w) continue;
          for (int64_t ci = 0; ci < s.cg; ++ci) visit(oy * s.ow + ox, s.tap(ci, r, q), ci, y, x);
        }
      }
}

}  // namespace

ConvGeometry::ConvGeometry(const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &d = a.desc;
  n = d.n, c = d.c, h = d.h, w = d.w, k = d.k, kh = d.kh, kw = d.kw;
  stride_h = d.stride_h, stride_w = d.stride_w, pad_h = d.pad_h, pad_w = d.pad_w;
  dilation_h = d.dilation_h, dilation_w = d.dilation_w;
  groups = d.groups, cg = a.c_per_group, kg = a.k_per_group, oh = a.oh, ow = a.ow;
  nhwc = d.format == DLK_FORMAT_NHWC;
}

void im2col(const ConvGeometry &s, const void *src, dlk_dtype type, int64_t i, int64_t g,
            std::vector<float> &col) {
  const int64_t taps = s.taps();
  col.assign(static_cast<size_t>(s.pixels() * taps), 0.0f);
  for_each_tap(s, [&](int64_t pixel, int64_t tap, int64_t ci, int64_t y, int64_t x) {
    col[static_cast<size_t>(pixel * taps + tap)] = load_float(src, s.src_index(i, g, ci, y * s.w + x), type);
  });
}

void col2im_add(const ConvGeometry &s, const std::vector<float> &col, std::vector<float> &image) {
  const int64_t taps = s.taps();
  for_each_tap(s, [&](int64_t pixel, int64_t tap, int64_t ci, int64_t y, int64_t x) {
    image[static_cast<size_t>((ci * s.h + y) * s.w + x)] += col[static_cast<size_t>(pixel * taps + tap)];
  });
}

}  // namespace dlk::fpga_sim
