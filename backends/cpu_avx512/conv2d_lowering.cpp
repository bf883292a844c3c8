#include "backends/cpu_avx512/conv2d_lowering.hpp"

#include <algorithm>
#include <string>

#include "backends/cpu_avx512/parallel_for.hpp"

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

template <class T>
void im2col(const ConvShape &s, const T *src, T pad, int64_t oy0, int64_t oy1, T *col,
            int threads) {
  const int64_t rows = oy1 - oy0, pixels = rows * s.ow;
  const int64_t cst = s.src_channel_stride(), pst = s.src_pixel_stride();
  if (!s.nhwc) {
    // One tap per task: its row of the matrix is contiguous.
    parallel_for(s.taps(), threads, [&](int64_t q, int) {
      const int64_t ci = q / (s.kh * s.kw), r = q / s.kw % s.kh, t = q % s.kw;
      T *out = col + q * pixels;
      for (int64_t oy = oy0; oy < oy1; ++oy, out += s.ow) {
        const int64_t iy = oy * s.stride_h - s.pad_h + r * s.dilation_h;
        if (iy < 0 || iy >= s.h) {
          std::fill(out, out + s.ow, pad);
          continue;
        }
        const T *in = src + ci * cst + iy * s.w;
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          const int64_t ix = ox * s.stride_w - s.pad_w + t * s.dilation_w;
          out[ox] = ix >= 0 && ix < s.w ? in[ix] : pad;
        }
      }
    });
    return;
  }
  // NHWC: one output row per task; each tap copies cg contiguous channels.
  parallel_for(rows, threads, [&](int64_t row, int) {
    const int64_t oy = oy0 + row;
    for (int64_t ox = 0; ox < s.ow; ++ox) {
      T *out = col + (row * s.ow + ox) * s.taps();
      for (int64_t r = 0; r < s.kh; ++r) {
        const int64_t iy = oy * s.stride_h - s.pad_h + r * s.dilation_h;
        for (int64_t t = 0; t < s.kw; ++t, out += s.cg) {
          const int64_t ix = ox * s.stride_w - s.pad_w + t * s.dilation_w;
          if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) {
            std::fill(out, out + s.cg, pad);
            continue;
          }
          const T *in = src + (iy * s.w + ix) * pst;  // channels are contiguous
          std::copy(in, in + s.cg, out);
        }
      }
    }
  });
}

template void im2col<float>(const ConvShape &, const float *, float, int64_t, int64_t, float *, int);
template void im2col<uint16_t>(const ConvShape &, const uint16_t *, uint16_t, int64_t, int64_t,
                               uint16_t *, int);
template void im2col<int8_t>(const ConvShape &, const int8_t *, int8_t, int64_t, int64_t, int8_t *,
                             int);
template void im2col<uint8_t>(const ConvShape &, const uint8_t *, uint8_t, int64_t, int64_t,
                              uint8_t *, int);

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
