#include "backends/cpu_avx512/conv2d_im2col_packer.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "backends/cpu_avx512/float_storage.hpp"

namespace dlk::cpu {
namespace {

// A run of a panel's columns [t0, t1) on one output row: column t reads input
// column ix0 + (t - t0) * stride_w + tap offset, and input row iy0 + tap offset.
struct Run {
  int64_t t0, t1, iy0, ix0;
};
constexpr int kMaxWidth = 64;  // widest micro-panel of any kernel

int runs_of(const ConvShape &s, int64_t pixel, int64_t cols, Run *runs) {
  int count = 0;
  for (int64_t t = 0; t < cols;) {
    const int64_t oy = (pixel + t) / s.ow, ox = (pixel + t) % s.ow;
    const int64_t len = std::min(cols - t, s.ow - ox);
    runs[count++] = {t, t + len, oy * s.stride_h - s.pad_h, ox * s.stride_w - s.pad_w};
    t += len;
  }
  return count;
}

// How a forward panel holds its elements (gemm_pack.hpp's PackedPanel), and
// what a padding tap holds: element (p, t) (tap p, pixel t) at index(p, t),
// `group` consecutive taps of a pixel together. f32 rows for the f32 kernels
// (f32, f16, and bf16 on tiers without a bf16 kernel); bf16 k-pairs, the bits
// as src stores them, for the bf16 kernel; u8 k-quads for the int8 GEMM's A,
// s8 shifted by 128 as that GEMM packs A, padding its zero point.
template <class Storage>
struct F32Layout {
  using In = typename Storage::type;
  using Out = float;
  static constexpr int64_t group = 1;
  Out pad = 0.0f;
  In source_pad() const { return In{}; }  // the bits that convert to pad
  Out convert(In v) const { return Storage::load(v); }
  void copy_unit(const In *in, Out *out) const { *out = convert(*in); }
  void pack_block(const kernels::GemmPackKernels &k, const PanelSource &src, int64_t count,
                  int64_t kc, int width, Out *out) const {
    pack_f32_panels(k, src, count, kc, width, out);
  }
};
struct Bf16PairLayout {
  using In = uint16_t;
  using Out = uint16_t;
  static constexpr int64_t group = 2;
  Out pad = 0;
  In source_pad() const { return 0; }
  Out convert(In v) const { return v; }
  void copy_unit(const In *in, Out *out) const { std::memcpy(out, in, 4); }
  void pack_block(const kernels::GemmPackKernels &k, const PanelSource &src, int64_t count,
                  int64_t kc, int width, Out *out) const {
    pack_bf16_pair_panels(k, src, count, kc, width, out);
  }
};
struct U8QuadLayout {
  using In = uint8_t;  // s8 src read as its bytes
  using Out = uint8_t;
  static constexpr int64_t group = 4;
  uint8_t flip;  // 0x80 for s8 src
  Out pad;       // the zero point, flipped too
  In source_pad() const { return static_cast<In>(pad ^ flip); }
  Out convert(In v) const { return static_cast<Out>(v ^ flip); }
  void copy_unit(const In *in, Out *out) const {
    uint32_t v;
    std::memcpy(&v, in, 4);
    v ^= flip * 0x01010101u;
    std::memcpy(out, &v, 4);
  }
  void pack_block(const kernels::GemmPackKernels &k, const PanelSource &src, int64_t count,
                  int64_t kc, int width, Out *out) const {
    pack_u8_quad_panels(k, src, count, kc, width, out);
  }
};

template <class Layout>
int64_t index(int64_t p, int64_t t, int width) {
  constexpr int64_t g = Layout::group;
  return (p / g) * g * width + t * g + p % g;
}

// Tap (ci, r, q) in NCHW's order (input channel, kernel row, kernel column),
// stepped along k without three divisions per panel row.
struct NchwTap {
  int64_t ci, r, q;
  NchwTap(const ConvShape &s, int64_t tap)
      : ci(tap / (s.kh * s.kw)), r(tap / s.kw % s.kh), q(tap % s.kw) {}
  void next(const ConvShape &s) {
    if (++q < s.kw) return;
    q = 0;
    if (++r == s.kh) r = 0, ++ci;
  }
};

// NCHW: one tap's row of the panel (`width` values, zeros past `cols`), from
// stretches of one input row per run.
template <class Layout>
void nchw_row(const Layout &layout, const ConvShape &s, const typename Layout::In *src,
              const NchwTap &tap, const Run *runs, int nruns, int64_t cols, int width,
              typename Layout::Out *row) {
  using Out = typename Layout::Out;
  const int64_t r = tap.r, q = tap.q;
  const typename Layout::In *plane = src + tap.ci * s.src_channel_stride();
  for (int i = 0; i < nruns; ++i) {
    const Run &run = runs[i];
    const int64_t n = run.t1 - run.t0, iy = run.iy0 + r * s.dilation_h;
    Out *o = row + run.t0;
    if (iy < 0 || iy >= s.h) {
      std::fill(o, o + n, layout.pad);
      continue;
    }
    const int64_t ix0 = run.ix0 + q * s.dilation_w;
    int64_t lo, hi;
    inside(ix0, n, s.stride_w, s.w, lo, hi);
    const typename Layout::In *in = plane + iy * s.w + ix0;
    std::fill(o, o + lo, layout.pad);
    if (s.stride_w == 1)
      for (int64_t t = lo; t < hi; ++t) o[t] = layout.convert(in[t]);
    else
      for (int64_t t = lo; t < hi; ++t) o[t] = layout.convert(in[t * s.stride_w]);
    std::fill(o + hi, o + n, layout.pad);
  }
  std::fill(row + cols, row + width, Out{0});
}

// NCHW: each tap row of the panel copies stretches of one input row. f32 rows
// are written in place; k-pairs and k-quads as contiguous rows first, then
// interleaved (one pass of wide stores rather than strided narrow ones).
template <class Layout>
void pack_nchw(const Layout &layout, const ConvShape &s, const typename Layout::In *src,
               int64_t p0, int64_t kc, const Run *runs, int nruns, int64_t cols,
               typename Layout::Out *out, int width) {
  using Out = typename Layout::Out;
  constexpr int64_t g = Layout::group;
  NchwTap tap(s, p0);
  if constexpr (g == 1) {
    for (int64_t p = 0; p < kc; ++p, tap.next(s))
      nchw_row(layout, s, src, tap, runs, nruns, cols, width, out + p * width);
  } else {
    Out rows[g][kMaxWidth];
    for (int64_t p = 0; p < kc; p += g) {
      for (int64_t e = 0; e < g; ++e, tap.next(s))
        if (p + e < kc) nchw_row(layout, s, src, tap, runs, nruns, cols, width, rows[e]);
        else std::fill(rows[e], rows[e] + width, Out{0});  // k past the block's end
      Out *units = out + p * width;
      for (int t = 0; t < width; ++t)
        for (int64_t e = 0; e < g; ++e) units[t * g + e] = rows[e][t];
    }
  }
}

// NHWC: taps run (r, q, channel) with channels innermost and contiguous. When
// the panel's pixels lie on one output row and a tap reads inside the image for
// all of them, a block of that tap's channels is a strided matrix whose k (the
// channels) is contiguous: the tier's packing kernel turns it into panel rows
// (16 x 16 register transposes on AVX-512). Elsewhere, and for blocks of fewer
// than kKernelChannels channels (whose calls cost more than they save: grouped
// convolutions), each element is stored down its panel column, a tap block at a
// time. Measured on Zen 4, 1 thread, CPU time against storing every element
// pixel by pixel: res2a NHWC forward 1.27x as fast, res4b 1.06x, 256 channels in
// 32 groups at 14x14 1.33x, LeNet-5 conv2 1.18x; routing the panels that
// straddle two output rows through a side panel, or small blocks through the
// kernel, made them slower.
constexpr int64_t kKernelChannels = 16;

template <class Layout>
void pack_nhwc(const Layout &layout, const ConvShape &s, const kernels::GemmPackKernels &kernels,
               dlk_dtype dtype, const typename Layout::In *src, int64_t src_offset, int64_t p0,
               int64_t kc, const Run *runs, int nruns, int64_t cols, typename Layout::Out *out,
               int width) {
  using Out = typename Layout::Out;
  const int64_t pst = s.src_pixel_stride();
  int64_t ci = p0 % s.cg, q = p0 / s.cg % s.kw, r = p0 / (s.cg * s.kw);
  for (int64_t p = 0; p < kc;) {
    const int64_t n = std::min(kc - p, s.cg - ci);
    const int64_t dy = r * s.dilation_h, dx = q * s.dilation_w;
    int64_t lo = 0, hi = 0;
    const int64_t iy = runs[0].iy0 + dy, ix0 = runs[0].ix0 + dx;
    // A kernel's block starts on a k group; a block whose length is not a
    // multiple of the group leaves its last group's rest zero, for the next
    // block (packed after it) to fill.
    if (nruns == 1 && n >= kKernelChannels && iy >= 0 && iy < s.h && p % Layout::group == 0)
      inside(ix0, cols, s.stride_w, s.w, lo, hi);
    // Edge panels go through the kernel too (a third of the int8 panels on
    // 14-wide rows; the NHWC int8 forward ran 0.87x the old banded path without):
    // it packs columns [0, hi) from column 0's pixel on, where columns [0, lo)
    // left of the image read the pixels before it in memory (the previous
    // row's or image's: inside the tensor, checked in 128 bits), and the
    // columns outside the image are then overwritten with the padding.
    using Wide = __int128;
    const bool readable =
        lo == 0 || Wide{src_offset} + (Wide{iy} * s.w + ix0) * pst + ci >= 0;
    if (lo < hi && readable) {
      layout.pack_block(kernels,
                        // One column takes no stride (validation leaves it unbounded then).
                        PanelSource{src + (iy * s.w + ix0) * pst + ci, dtype,
                                    hi > 1 ? s.stride_w * pst : 0, 1},
                        hi, n, width, out + index<Layout>(p, 0, width));  // zeros past hi
      for (int64_t t = 0; t < cols; ++t)
        if (t < lo || (t >= hi && layout.pad != Out{0}))
          for (int64_t e = 0; e < n; ++e) out[index<Layout>(p + e, t, width)] = layout.pad;
    } else {
      for (int i = 0; i < nruns; ++i) {
        const Run &run = runs[i];
        for (int64_t t = run.t0; t < run.t1; ++t) {
          const int64_t y = run.iy0 + dy, x = run.ix0 + (t - run.t0) * s.stride_w + dx;
          const bool outside = y < 0 || y >= s.h || x < 0 || x >= s.w;
          const typename Layout::In *in = outside ? nullptr : src + (y * s.w + x) * pst + ci;
          int64_t e = 0;
          // Whole k groups from their start: a group's elements lie together in
          // the panel, one 32-bit unit (the int8 NHWC forward ran 1.5x slower
          // when it stored them byte by byte).
          if (p % Layout::group == 0)
            for (; e + Layout::group <= n; e += Layout::group) {
              typename Layout::Out *o = out + index<Layout>(p + e, t, width);
              if (outside) std::fill(o, o + Layout::group, layout.pad);
              else layout.copy_unit(in + e, o);
            }
          for (; e < n; ++e)
            out[index<Layout>(p + e, t, width)] = outside ? layout.pad : layout.convert(in[e]);
        }
      }
      for (int64_t e = 0; e < n; ++e)
        for (int64_t t = cols; t < width; ++t) out[index<Layout>(p + e, t, width)] = Out{0};
    }
    p += n, ci = 0;
    if (++q == s.kw) q = 0, ++r;
  }
  // The rest of the last k group past kc.
  for (int64_t p = kc; p % Layout::group != 0; ++p)
    for (int64_t t = 0; t < width; ++t) out[index<Layout>(p, t, width)] = Out{0};
}

// NHWC in one group without horizontal dilation (nhwc_rows_stageable): a
// pixel's taps on one kernel row are kw x c contiguous elements of src, so each
// panel row (a pixel's taps [p0, p0 + kc)) is staged whole, stretches of src and
// the padding's value, and the tier's packing kernel turns the staged rows into
// the panel in one call. pack_nhwc stores an element at a time down the panel's
// columns where a block has fewer than kKernelChannels channels (conv1's NHWC
// forward ran 0.09-0.11x oneDNN-any int8, 0.33-0.43x f32) and wherever the
// panel's pixels straddle output rows (every int8 panel of res5b's 7-pixel
// rows). False where the staged rows do not fit the stage.
constexpr int64_t kStagedBytes = int64_t{64} << 10;

// memcpy of `bytes`; 4 to 32 of them (a kernel row of conv1: 21 bytes int8) as
// two overlapping fixed-size copies the compiler inlines: the call per kernel
// row cost conv1's int8 NHWC forward about a tenth of its time.
inline void copy_bytes(void *to, const void *from, int64_t bytes) {
  auto *d = static_cast<unsigned char *>(to);
  const auto *f = static_cast<const unsigned char *>(from);
  const auto pair = [&](auto piece) {
    constexpr int64_t n = sizeof(piece);
    std::memcpy(d, f, n);
    std::memcpy(d + bytes - n, f + bytes - n, n);
  };
  struct Bytes16 {
    unsigned char b[16];
  };
  if (bytes >= 16 && bytes <= 32) pair(Bytes16{});
  else if (bytes >= 8 && bytes < 16) pair(uint64_t{});
  else if (bytes >= 4 && bytes < 8) pair(uint32_t{});
  else std::memcpy(d, f, static_cast<size_t>(bytes));
}

template <class Layout>
bool pack_nhwc_staged(const Layout &layout, const ConvShape &s,
                      const kernels::GemmPackKernels &kernels, dlk_dtype dtype,
                      const typename Layout::In *src, int64_t p0, int64_t kc, const Run *runs,
                      int nruns, int64_t cols, typename Layout::Out *out, int width) {
  using In = typename Layout::In;
  if (kc * cols * int64_t{sizeof(In)} > kStagedBytes) return false;
  alignas(64) unsigned char buffer[kStagedBytes];
  In *staged = reinterpret_cast<In *>(buffer);
  const In pad = layout.source_pad();
  const int64_t row = s.kw * s.cg;  // elements of a kernel row
  // Kernel rows [r0, r1] hold [p0, p0 + kc): the whole of each but [first, row)
  // of r0 and [0, last) of r1.
  const int64_t r0 = p0 / row, r1 = (p0 + kc - 1) / row;
  const int64_t first = p0 - r0 * row, last = p0 + kc - r1 * row;
  for (int i = 0; i < nruns; ++i) {
    const Run &run = runs[i];
    for (int64_t t = run.t0; t < run.t1; ++t) {
      const int64_t ix0 = run.ix0 + (t - run.t0) * s.stride_w;
      // Elements [in0, in1) of a kernel row read inside the image.
      const int64_t in0 = std::clamp<int64_t>(-ix0, 0, s.kw) * s.cg;
      const int64_t in1 = std::max(std::clamp<int64_t>(s.w - ix0, 0, s.kw) * s.cg, in0);
      const int64_t pixel = ix0 * s.cg;  // (an offset: before src left of the image)
      In *o = staged + t * kc;
      // Elements [a, b) of kernel row r, at o.
      const auto stage = [&](int64_t r, int64_t a, int64_t b) {
        const int64_t iy = run.iy0 + r * s.dilation_h;
        const int64_t lo = std::clamp(in0, a, b), hi = std::clamp(in1, lo, b);
        if (iy < 0 || iy >= s.h || lo == hi) {
          std::fill(o, o + (b - a), pad);
        } else {
          std::fill(o, o + (lo - a), pad);
          copy_bytes(o + (lo - a), src + (pixel + iy * s.w * s.cg + lo), (hi - lo) * int64_t{sizeof(In)});
          std::fill(o + (hi - a), o + (b - a), pad);
        }
        o += b - a;
      };
      if (r0 == r1) {
        stage(r0, first, last);
        continue;
      }
      stage(r0, first, row);
      for (int64_t r = r0 + 1; r < r1; ++r) stage(r, 0, row);
      stage(r1, 0, last);
    }
  }
  layout.pack_block(kernels, PanelSource{staged, dtype, kc, 1}, cols, kc, width, out);
  return true;
}

// A panel of the forward B (or of the int8 A) in `layout`, from src of one
// image and group (src_offset elements from the tensor's start): pixels
// [j0, j0 + cols), taps [p0, p0 + kc); `stageable` as nhwc_rows_stageable(s).
template <class Layout>
void pack_forward(const Layout &layout, const ConvShape &s, bool stageable,
                  const kernels::GemmPackKernels &kernels, dlk_dtype dtype,
                  const typename Layout::In *src, int64_t src_offset, int64_t p0, int64_t kc,
                  int64_t j0, int64_t cols, typename Layout::Out *out, int width) {
  Run runs[kMaxWidth];
  const int nruns = runs_of(s, j0, cols, runs);
  if (s.nhwc) {
    const bool staged = stageable && (s.cg < kKernelChannels || nruns > 1) &&
                        pack_nhwc_staged(layout, s, kernels, dtype, src, p0, kc, runs, nruns, cols,
                                         out, width);
    if (!staged)
      pack_nhwc(layout, s, kernels, dtype, src, src_offset, p0, kc, runs, nruns, cols, out, width);
  } else {
    pack_nchw(layout, s, src, p0, kc, runs, nruns, cols, out, width);
  }
}

// How a backward-weights panel holds an element: f32 for the f32 kernels (f32,
// f16, and bf16 on tiers without a bf16 kernel), or the bf16 bits as src
// stores them, in k-pairs (gemm_pack.hpp's PackedPanel), for the bf16 kernel.
template <class Storage, class Out>
Out panel_value(typename Storage::type v) {
  if constexpr (std::is_same_v<Out, float>) return Storage::load(v);
  else return v;
}
template <class Out>
constexpr Out kOne = std::is_same_v<Out, float> ? Out(1.0f) : Out(0x3F80);  // bf16 1.0

// im2col^T, NCHW: the panel's columns are taps, its rows pixels. Each tap's
// run of pixels (stretches of input rows) is staged as a contiguous row, then
// the tier's packing kernel transposes the staged rows into the panel (16 x 16
// register transposes on AVX-512), k-pairs included. Before, each element was
// stored down its panel column: 46 % of LeNet-5 conv2's backward weights.
constexpr int64_t kStagedPixels = 128;

template <class Storage, class Out>
void pack_transposed_nchw(const ConvShape &s, const kernels::GemmPackKernels &kernels,
                          const typename Storage::type *src, int64_t p0, int64_t kc, int64_t j0,
                          int64_t cols, Out *out, int width) {
  alignas(64) Out staged[kMaxWidth * kStagedPixels];
  constexpr int64_t group = sizeof(float) / sizeof(Out);  // pixels per 32-bit unit
  for (int64_t c0 = 0; c0 < kc; c0 += kStagedPixels) {
    const int64_t count = std::min(kStagedPixels, kc - c0);
    for (int64_t t = 0; t < cols; ++t) {
      Out *row = staged + t * kStagedPixels;
      const int64_t tap = j0 + t;
      if (tap == s.taps()) {  // the ones column
        std::fill(row, row + count, kOne<Out>);
        continue;
      }
      const int64_t ci = tap / (s.kh * s.kw), r = tap / s.kw % s.kh, q = tap % s.kw;
      const typename Storage::type *plane = src + ci * s.src_channel_stride();
      for (int64_t p = 0; p < count;) {
        const int64_t oy = (p0 + c0 + p) / s.ow, ox = (p0 + c0 + p) % s.ow;
        const int64_t n = std::min(count - p, s.ow - ox);
        Out *o = row + p;
        p += n;
        const int64_t iy = oy * s.stride_h - s.pad_h + r * s.dilation_h;
        if (iy < 0 || iy >= s.h) {
          std::fill(o, o + n, Out{0});
          continue;
        }
        const int64_t ix0 = ox * s.stride_w - s.pad_w + q * s.dilation_w;
        int64_t lo, hi;
        inside(ix0, n, s.stride_w, s.w, lo, hi);
        const typename Storage::type *in = plane + iy * s.w + ix0;
        std::fill(o, o + lo, Out{0});
        if (s.stride_w == 1)
          for (int64_t e = lo; e < hi; ++e) o[e] = panel_value<Storage, Out>(in[e]);
        else
          for (int64_t e = lo; e < hi; ++e) o[e] = panel_value<Storage, Out>(in[e * s.stride_w]);
        std::fill(o + hi, o + n, Out{0});
      }
    }
    kernels.k_contiguous(reinterpret_cast<const uint8_t *>(staged), kStagedPixels * sizeof(Out),
                         static_cast<int>(cols), count * static_cast<int64_t>(sizeof(Out)), width, 0,
                         reinterpret_cast<uint8_t *>(out) + c0 / group * width * 4);
  }
}

// im2col^T, NHWC: a row of the panel (one output pixel) is runs of contiguous
// channels of the input pixels its taps read; in k-pairs, two pixels' rows
// interleave. The pixels of a k group are packed together, a run of both at a
// time, so that the compiler interleaves them by vector shuffles (one
// pixel's run after the other wrote every other element: res2a_3x3's bf16
// backward weights spent four times the GEMM's time here).
template <class Storage, class Out>
void pack_transposed_nhwc(const ConvShape &s, const typename Storage::type *src, int64_t p0,
                          int64_t kc, int64_t j0, int64_t cols, Out *out, int width) {
  using In = typename Storage::type;
  constexpr int64_t g = sizeof(float) / sizeof(Out);  // pixels per 32-bit unit
  const int64_t taps_cols = std::min(cols, s.taps() - j0);
  for (int64_t p = 0; p < kc; p += g) {
    Out *row = out + p * width;  // element t of pixel p + u at row[t * g + u]
    int64_t oy[g], ox[g];
    bool live[g];  // pixel p + u is below kc (else its elements are zeros)
    for (int64_t u = 0; u < g; ++u) {
      live[u] = p + u < kc;
      oy[u] = (p0 + p + u) / s.ow, ox[u] = (p0 + p + u) % s.ow;
    }
    int64_t ci = j0 % s.cg, q = j0 / s.cg % s.kw, r = j0 / (s.cg * s.kw);
    for (int64_t t = 0; t < taps_cols;) {
      const int64_t n = std::min(taps_cols - t, s.cg - ci);
      const In *in[g];
      for (int64_t u = 0; u < g; ++u) {
        const int64_t iy = oy[u] * s.stride_h - s.pad_h + r * s.dilation_h;
        const int64_t ix = ox[u] * s.stride_w - s.pad_w + q * s.dilation_w;
        const bool inside = live[u] && iy >= 0 && iy < s.h && ix >= 0 && ix < s.w;
        in[u] = inside ? src + (iy * s.w + ix) * s.src_pixel_stride() + ci : nullptr;
      }
      Out *o = row + t * g;
      if constexpr (g == 1) {
        if (in[0])
          for (int64_t e = 0; e < n; ++e) o[e] = panel_value<Storage, Out>(in[0][e]);
        else
          std::fill(o, o + n, Out{0});
      } else if (in[0] && in[1]) {
        for (int64_t e = 0; e < n; ++e) {
          o[2 * e] = panel_value<Storage, Out>(in[0][e]);
          o[2 * e + 1] = panel_value<Storage, Out>(in[1][e]);
        }
      } else {
        for (int64_t e = 0; e < n; ++e) {
          o[2 * e] = in[0] ? panel_value<Storage, Out>(in[0][e]) : Out{0};
          o[2 * e + 1] = in[1] ? panel_value<Storage, Out>(in[1][e]) : Out{0};
        }
      }
      t += n, ci = 0;
      if (++q == s.kw) q = 0, ++r;
    }
    for (int64_t u = 0; u < g; ++u) {
      for (int64_t t = std::max<int64_t>(taps_cols, 0); t < cols; ++t)
        row[t * g + u] = live[u] ? kOne<Out> : Out{0};
      for (int64_t t = cols; t < width; ++t) row[t * g + u] = Out{0};
    }
  }
}

// The tier's NCHW kernel for an f32 panel of src (element `offset` of it) in
// `dtype`: f32 as it is, bf16 widened; false where it has none, or declines.
bool nchw_f32_panel(const kernels::Im2colNchwKernels &k, dlk_dtype dtype, const ConvShape &s,
                    const void *src, int64_t offset, int64_t p0, int64_t kc, int64_t j0,
                    int64_t cols, int width, float *out) {
  if (dtype == DLK_DTYPE_F32)
    return k.f32 &&
           k.f32(s, static_cast<const float *>(src) + offset, p0, kc, j0, cols, width, out);
  if (dtype == DLK_DTYPE_BF16)
    return k.bf16_as_f32 && k.bf16_as_f32(s, static_cast<const uint16_t *>(src) + offset, p0, kc,
                                          j0, cols, width, out);
  return false;
}

// Runs a tier's panel kernel on each `width`-row micro-panel of `rows`, the
// panel at r0 written `panel_size` elements from the one before; false as soon
// as the kernel declines one (a stride or a span of rows it does not take), and
// the element loops then pack them all.
// Pixel `pixel`'s row of im2col^T on NHWC for the AMX kernels' rows layout:
// taps [p0, p0 + kc) in the weights' order (a tap's channels contiguous, as
// src holds them), each byte xored with `flip`, `pad` where a tap falls
// outside the image, zeros from kc to ld.
void nhwc_u8_row(const ConvShape &s, const uint8_t *src, int64_t pixel, int64_t p0, int64_t kc,
                 uint8_t flip, uint8_t pad, int64_t ld, uint8_t *out) {
  const int64_t oy = pixel / s.ow, ox = pixel % s.ow;
  for (int64_t p = p0; p < p0 + kc;) {
    const int64_t tap = p / s.cg, ci = p % s.cg, run = std::min(s.cg - ci, p0 + kc - p);
    const int64_t iy = oy * s.stride_h - s.pad_h + tap / s.kw * s.dilation_h;
    const int64_t ix = ox * s.stride_w - s.pad_w + tap % s.kw * s.dilation_w;
    uint8_t *o = out + (p - p0);
    if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) {
      std::memset(o, pad, static_cast<size_t>(run));
    } else {
      const uint8_t *from = src + (iy * s.w + ix) * s.c + ci;
      if (flip == 0)
        std::memcpy(o, from, static_cast<size_t>(run));
      else
        for (int64_t j = 0; j < run; ++j) o[j] = static_cast<uint8_t>(from[j] ^ flip);
    }
    p += run;
  }
  std::memset(out + kc, 0, static_cast<size_t>(ld - kc));
}

template <typename PanelKernel>
bool pack_by_panel_kernel(int64_t rows, int width, int64_t panel_size,
                          const PanelKernel &kernel) {
  for (int64_t r0 = 0; r0 < rows; r0 += width)
    if (!kernel(r0, std::min<int64_t>(width, rows - r0), r0 / width * panel_size)) return false;
  return true;
}

}  // namespace

const kernels::Im2colNchwKernels &im2col_nchw_kernels(core::CpuIsa isa) {
  static constexpr kernels::Im2colNchwKernels avx512{
      kernels::im2col_nchw_f32_avx512, kernels::im2col_nchw_bf16_as_f32_avx512,
      kernels::im2col_nchw_bf16_pairs_avx512, kernels::im2col_nchw_u8_quads_avx512};
  static constexpr kernels::Im2colNchwKernels none{nullptr, nullptr, nullptr, nullptr};
  return isa == core::CpuIsa::avx512 ? avx512 : none;
}

bool nhwc_rows_stageable(const ConvShape &s) {
  return s.nhwc && s.groups == 1 && s.dilation_w == 1 && s.src_pixel_stride() == s.cg;
}

void Im2colTransposePanelPacker::pack(int64_t batch, int64_t p0, int64_t kc, int64_t j,
                                      int64_t cols, const PackedPanel &panel) const {
  const int64_t j0 = first_column_ + j;
  with_float_storage(dtype_, [&](auto storage) {
    using Storage = decltype(storage);
    const auto *src =
        static_cast<const typename Storage::type *>(src_) + s_.src_offset(batch, group_);
    const auto run = [&](auto *out) {
      using Out = std::remove_pointer_t<decltype(out)>;
      if (s_.nhwc)
        pack_transposed_nhwc<Storage, Out>(s_, src, p0, kc, j0, cols, out, panel.width);
      else
        pack_transposed_nchw<Storage, Out>(s_, kernels_, src, p0, kc, j0, cols, out, panel.width);
    };
    // The GEMM asks for k-pairs only when both its operands are bf16.
    if constexpr (std::is_same_v<Storage, FloatStorage<DLK_DTYPE_BF16>>)
      if (panel.type == PackedType::bf16_pairs) return run(static_cast<uint16_t *>(panel.data));
    run(static_cast<float *>(panel.data));
  });
}

void Im2colPanelPacker::pack(int64_t batch, int64_t p0, int64_t kc, int64_t j0, int64_t cols,
                             const PackedPanel &panel) const {
  const int64_t offset = s_.src_offset(batch, group_);
  const auto run = [&](const auto &layout, auto *out) {
    using In = typename std::decay_t<decltype(layout)>::In;
    pack_forward(layout, s_, stageable_, kernels_, dtype_, static_cast<const In *>(src_) + offset,
                 offset, p0, kc, j0, cols, out, panel.width);
  };
  if (panel.type == PackedType::bf16_pairs) {  // the GEMM asks for it with bf16 src only
    auto *out = static_cast<uint16_t *>(panel.data);
    if (nchw_.bf16_pairs && !s_.nhwc &&
        nchw_.bf16_pairs(s_, static_cast<const uint16_t *>(src_) + offset, p0, kc, j0, cols,
                         panel.width, out))
      return;
    return run(Bf16PairLayout{}, out);
  }
  if (!s_.nhwc && nchw_f32_panel(nchw_, dtype_, s_, src_, offset, p0, kc, j0, cols, panel.width,
                                 static_cast<float *>(panel.data)))
    return;
  with_float_storage(dtype_, [&](auto storage) {
    run(F32Layout<decltype(storage)>{}, static_cast<float *>(panel.data));
  });
}

void Im2colAPanelPacker::pack(int64_t batch, int64_t i0, int64_t rows, int64_t p0, int64_t kc,
                              const PackedPanel &first) const {
  const int64_t offset = s_.src_offset(batch, group_);
  const int width = first.width;
  // One MR-row micro-panel after another, each kc (padded to the layout's k
  // group) x width.
  const auto panels = [&](const auto &layout, auto *out) {
    using Layout = std::decay_t<decltype(layout)>;
    const auto *src = static_cast<const typename Layout::In *>(src_) + offset;
    const int64_t size = (kc + Layout::group - 1) / Layout::group * Layout::group * width;
    for (int64_t r0 = 0; r0 < rows; r0 += width, out += size)
      pack_forward(layout, s_, stageable_, kernels_, dtype_, src, offset, p0, kc, i0 + r0,
                   std::min<int64_t>(width, rows - r0), out, width);
  };
  switch (first.type) {
    case PackedType::u8_rows: {  // NHWC only (writes_rows)
      const uint8_t flip = dtype_ == DLK_DTYPE_S8 ? 0x80 : 0;
      const auto pad = static_cast<uint8_t>(static_cast<uint8_t>(zero_point_) ^ flip);
      const int64_t ld = (kc + 3) / 4 * 4;
      auto *out = static_cast<uint8_t *>(first.data);
      const auto *src = static_cast<const uint8_t *>(src_) + offset;
      for (int64_t t = 0; t < rows; ++t)
        nhwc_u8_row(s_, src, i0 + t, p0, kc, flip, pad, ld, out + t * ld);
      return;
    }
    case PackedType::u8_quads: {
      const uint8_t flip = dtype_ == DLK_DTYPE_S8 ? 0x80 : 0;
      const auto pad = static_cast<uint8_t>(static_cast<uint8_t>(zero_point_) ^ flip);
      auto *out = static_cast<uint8_t *>(first.data);
      const auto *src = static_cast<const uint8_t *>(src_) + offset;
      if (nchw_.u8_quads && !s_.nhwc &&
          pack_by_panel_kernel(rows, width, (kc + 3) / 4 * 4 * width,
                               [&](int64_t r0, int64_t n, int64_t at) {
                                 return nchw_.u8_quads(s_, src, p0, kc, i0 + r0, n, width, flip,
                                                       pad, out + at);
                               }))
        return;
      return panels(U8QuadLayout{flip, pad}, out);
    }
    case PackedType::bf16_pairs: {  // the GEMM asks for it with bf16 src only
      auto *out = static_cast<uint16_t *>(first.data);
      const auto *src = static_cast<const uint16_t *>(src_) + offset;
      if (nchw_.bf16_pairs && !s_.nhwc &&
          pack_by_panel_kernel(rows, width, (kc + 1) / 2 * 2 * width,
                               [&](int64_t r0, int64_t n, int64_t at) {
                                 return nchw_.bf16_pairs(s_, src, p0, kc, i0 + r0, n, width,
                                                         out + at);
                               }))
        return;
      return panels(Bf16PairLayout{}, out);
    }
    default: break;
  }
  auto *out = static_cast<float *>(first.data);
  if (!s_.nhwc &&
      pack_by_panel_kernel(rows, width, kc * width, [&](int64_t r0, int64_t n, int64_t at) {
        return nchw_f32_panel(nchw_, dtype_, s_, src_, offset, p0, kc, i0 + r0, n, width,
                              out + at);
      }))
    return;
  with_float_storage(dtype_, [&](auto storage) { panels(F32Layout<decltype(storage)>{}, out); });
}

}  // namespace dlk::cpu
