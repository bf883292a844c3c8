#include "backends/cpu_avx512/conv2d_lowering.hpp"

#include <algorithm>
#include <string>

namespace dlk::cpu {
namespace {

// A band's im2col matrix beyond this is split into more bands: large enough for
// GEMM blocks of full size, small enough to stay in the L3.
constexpr int64_t kBandBytes = int64_t{4} << 20;

}  // namespace

ConvShape::ConvShape(const core::Conv2dArgs &a)
    : n(a.desc.n), c(a.desc.c), h(a.desc.h), w(a.desc.w), k(a.desc.k), kh(a.desc.kh),
      kw(a.desc.kw), stride_h(a.desc.stride_h), stride_w(a.desc.stride_w), pad_h(a.desc.pad_h),
      pad_w(a.desc.pad_w), dilation_h(a.desc.dilation_h), dilation_w(a.desc.dilation_w),
      groups(a.desc.groups), cg(a.c_per_group), kg(a.k_per_group), oh(a.oh), ow(a.ow),
      nhwc(a.desc.format == DLK_FORMAT_NHWC) {}

ColLayout col_layout(const ConvShape &s, int64_t pixels) {
  return s.nhwc ? ColLayout{1, s.taps()} : ColLayout{pixels, 1};
}

Bands plan_bands(const ConvShape &s, int64_t bytes_per_pixel, int64_t fixed_bytes, int64_t items,
                 int threads) {
  const int64_t row_bytes = s.ow * bytes_per_pixel;
  Bands b;
  b.rows = std::clamp<int64_t>(kBandBytes / std::max<int64_t>(row_bytes, 1), 1, s.oh);
  // Callers carve a band into up to three 64-byte aligned parts.
  b.bytes_per_band = ScratchCarver::aligned(static_cast<size_t>(b.rows * row_bytes)) +
                     ScratchCarver::aligned(static_cast<size_t>(fixed_bytes)) + 3 * 64;
  const int fit = static_cast<int>(
      std::clamp<size_t>(kScratchBound / std::max<size_t>(b.bytes_per_band, 1), 1, threads));
  b.split = items >= fit ? ThreadSplit{fit, 1} : ThreadSplit{1, threads};
  return b;
}

void *band_scratch(Scratch &scratch, const ConvShape &s, const Bands &bands, const char *call) {
  const auto arg = [](const char *name, int64_t v) {
    return std::string(name) + " (" + std::to_string(v) + ")";
  };
  return scratch.get(bands.bytes_per_band * bands.split.outer, call,
                     "the im2col band of one output row, " + arg("ow", s.ow) + " pixels x " +
                         arg("c/groups", s.cg) + " x " + arg("kh", s.kh) + " x " + arg("kw", s.kw) +
                         " taps,");
}

void inside_clipped(int64_t ix0, int64_t n, int64_t stride, int64_t w, int64_t &lo,
                    int64_t &hi) {
  constexpr int64_t kSmall = int64_t{1} << 60;
  if (ix0 > -kSmall && ix0 < kSmall && stride < kSmall) {  // no overflow in 64 bits
    const int64_t l = ix0 >= 0 ? 0 : (-ix0 + stride - 1) / stride;
    const int64_t h = ix0 >= w ? 0 : (w - 1 - ix0) / stride + 1;
    lo = std::min(l, n);
    hi = std::clamp(h, lo, n);
    return;
  }
  using Wide = __int128;
  const Wide l = ix0 >= 0 ? 0 : (-Wide{ix0} + stride - 1) / stride;
  const Wide h = ix0 >= w ? 0 : (Wide{w} - 1 - ix0) / stride + 1;
  lo = static_cast<int64_t>(std::min<Wide>(l, n));
  hi = static_cast<int64_t>(std::clamp<Wide>(h, lo, n));
}

}  // namespace dlk::cpu
