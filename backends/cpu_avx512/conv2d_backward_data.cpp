// Convolution backward-data (float types): GEMM then col2im, per image and
// group, on chunks of channels (DataPlan) and bands of output rows. col (pixels
// x the chunk's taps) = diff_dst^T * the chunk's columns of the weights,
// pixel-major: the GEMM's rows are the band's pixels and its B the weights as
// they are stored, packed in one sweep along each row. col2im
// (conv2d_col2im.hpp) then adds the band into the chunk's channels of the
// image: diff_src itself for f32 (zeroed first), else an f32 image rounded
// once into diff_src. Cols and images live in the context's scratch. A 1x1
// convolution without padding skips col2im: one GEMM per group straight into
// diff_src (backward_data_pointwise; where it wins, see pointwise_route).
//
// Before, col was tap-major over all taps (weights^T * diff_dst), the GEMM's
// threads meeting at its barriers: the weights were packed as A, 14 taps read
// from each of k rows far apart (35 % of res5b's time, 1 thread), and the 49
// pixels of res5a/res5b filled 2 panels of 32 columns where they fill 4
// micro-rows of 14 now; col2im ran scalar loops, with a pass more for f32.
// Against that, on Zen 4, 1 thread, CPU time of interleaved calls: res5b
// 1.26x, res5a 1.20x, res4b 1.24x, res4a 1.17x, res2a 1.10x as fast. Pixel-
// major, NCHW col2im transposes blocks of 32 pixels in registers to add along
// image rows (kernels/col2im_tier.inc). With few output channels per group the
// GEMM is short (k = kg) and that transpose would weigh more than the GEMM
// gains: NCHW below kTapMajorBelowK keeps col tap-major (LeNet-5 conv1, k = 6:
// 2.4x the CPU time pixel-major).
//
// The transposed lowering (the forward pass of the convolution with the weights
// turned around, over diff_dst, im2col packed into the GEMM's panels, C
// diff_src itself) was built and measured against this on Zen 4 (1 thread, best
// of 25 interleaved calls): col2im took 0.48-0.98x its time on the stride-1
// ResNet-50 3x3 layers (res5b, 7x7 pixels: 0.48; the turned convolution packs
// the whole 512 x 4608 weight matrix as A for 49 pixels) and 0.13-0.33x on
// LeNet-5 (c = 1 and 6 make its C a GEMM of 1 and 6 rows). At stride > 1 it
// would also multiply by the zeros of diff_dst dilated by the stride. So col2im
// it is, except where a single output row's band would not fit the scratch
// bound (backward_data_transposed), and where the turned convolution runs on
// the AVX-512 tier's channel-lane kernel (f32 and bf16 at stride 1, and at
// stride 2 as 4 phases of stride-1 convolutions; no groups, many channels and
// pixels: backward_data_channel_lanes), whose packing turns the
// weights, or on its wide-row kernel (NCHW at stride 1, no groups: see
// backward_data_wide_rows), which reads B from a padded copy of diff_dst:
// no im2col packing, the weights turned once per call; bf16 at stride 2
// where the GEMM runs on AMX tiles, as four phase convolutions on the AMX
// kernel (conv2d_backward_data_amx_phases.hpp), and f32 and bf16 groups of
// 4 to 16 channels at stride 2 as four phase convolutions per group on the
// wide-row kernel (conv2d_backward_data_wide_rows_phases.hpp). f32 NCHW at stride 1
// with at most 16 input and output channels runs the AVX-512 tier's direct
// kernel instead (kernels/conv2d_direct_rows_kernels.hpp): LeNet-5 conv2.
#include <algorithm>
#include <numeric>
#include <string>
#include <type_traits>

#include "backends/cpu_avx512/conv2d_backward_data_amx_phases.hpp"
#include "backends/cpu_avx512/conv2d_backward_data_wide_rows_phases.hpp"
#include "backends/cpu_avx512/conv2d_col2im.hpp"
#include "backends/cpu_avx512/conv2d_group_views.hpp"
#include "backends/cpu_avx512/conv2d_lowering.hpp"
#include "backends/cpu_avx512/cpu_ops.hpp"
#include "backends/cpu_avx512/float_storage.hpp"
#include "backends/cpu_avx512/gemm_driver.hpp"
#include "backends/cpu_avx512/gemm_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_amx_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_channel_lanes_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_direct_rows_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_direct_kernels.hpp"
#include "backends/cpu_avx512/kernels/transpose_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

// NCHW with fewer output channels per group than this (or fewer taps than a
// panel's 32 columns) writes col tap-major (see the top of the file).
constexpr int64_t kTapMajorBelowK = 32;

// A chunk of a group's channels has about this many taps: its B (k/groups x
// taps of the weights) and col band stay in L2 between the GEMM that writes
// the band and col2im that reads it.
constexpr int64_t kChunkTaps = 256;
constexpr int64_t kColBytes = int64_t{512} << 10;
// f32 up to this many output pixels, whose GEMM reads the weights in place as
// B (gemm_driver.cpp, reads_b_in_place: no B kept in L2 to bound), fills a
// chunk's col up to kColBytes instead: fewer chunks, fewer packings of the same
// diff_dst^T as A. Intel Xeon model 167, 1 thread, batch 1, NCHW, 49 pixels:
// res5b_3x3 1.05-1.07x (0.65-0.66 -> 0.70-0.71x oneDNN-any), res5a_1x1b
// 1.05-1.06x, res5a_3x3 1.01-1.05x (0.80 -> 0.85x); 196 pixels (B packed) lost
// 0.92-0.99x so, and bf16 (widened into a packed B here) 0.82-0.96x.
constexpr int64_t kMaxPixelsForLongChunks = 128;

// How the work is split: `outer` threads take items (an image and group)
// whole, or `inner` threads take the parts of one item: NCHW its channel
// chunks, NHWC slabs of its image rows (see below). Every worker runs its
// GEMMs on one thread, so no GEMM waits at a barrier, and col2im adds the
// band into the worker's own part of the image right after its GEMM.
struct DataPlan {
  int outer = 1, inner = 1;
  int64_t chunks = 1, chunk_taps = 0, rows = 1;
  int64_t slabs = 1;  // of image rows, NHWC
  int shared = 1;      // threads sharing each GEMM and col2im (NHWC without slabs)
  size_t col_bytes = 0, image_bytes = 0;  // per worker; per outer thread (f16/bf16)
  int workers() const { return std::max(outer, inner); }
  size_t bytes() const { return col_bytes * workers() + image_bytes * outer + 64; }
};

DataPlan plan_data(const ConvShape &s, bool in_place, int threads) {
  DataPlan p;
  const int64_t items = s.n * s.groups, khw = s.kh * s.kw;
  if (items >= threads) p.outer = team_size(items, threads);
  else p.inner = team_size(s.nhwc ? s.h : s.cg, threads);
  // Chunks of equal channel counts, a multiple of the inner threads, whose
  // taps fill whole panels of 32 columns where the channels allow (32
  // channels of a 3x3 kernel: a chunk of 26 filled 7.3 panels). NHWC taps run
  // channels innermost, so a chunk of channels is no range of them: one
  // chunk, and the inner threads take slabs of the image's rows instead, each
  // computing the output rows that reach its slab: a slab boundary costs
  // (kh - 1) x dilation / stride rows computed twice, so slabs run only where
  // those are at most a quarter of a slab's rows. Otherwise the inner threads
  // share each band's GEMM and split its col2im by channels, which makes them
  // meet at the GEMM's barriers and read half of each band from the other
  // core's cache (Zen 5, 2 threads, slabs against sharing: res2a 1.23-1.34x,
  // VGG-16 conv1_2 1.51-1.85x, res3b 1.03-1.10x, res4b 1.03-1.14x, but res5b,
  // 7 rows, 0.60-0.65x).
  const int64_t unit = 32 / std::gcd<int64_t>(khw, 32);
  const int64_t out_pixels = s.oh * s.ow;
  const int64_t chunk_taps =
      in_place && out_pixels > 0 && out_pixels <= kMaxPixelsForLongChunks
          ? std::max<int64_t>(kChunkTaps, kColBytes / int64_t{sizeof(float)} / out_pixels)
          : kChunkTaps;
  const int64_t per_chunk = std::max<int64_t>(1, chunk_taps / (unit * khw)) * unit;
  p.chunks = s.nhwc ? 1 : (s.cg + per_chunk - 1) / per_chunk;
  if (!s.nhwc) p.chunks = std::min(s.cg, (p.chunks + p.inner - 1) / p.inner * p.inner);
  p.chunk_taps = (s.cg + p.chunks - 1) / p.chunks * khw;
  const int64_t row_bytes = s.ow * p.chunk_taps * int64_t{sizeof(float)};
  p.rows = std::clamp<int64_t>(kColBytes / std::max<int64_t>(row_bytes, 1), 1, s.oh);
  p.image_bytes = in_place ? 0 : ScratchCarver::aligned(s.cg * s.h * s.w * sizeof(float));
  p.col_bytes = ScratchCarver::aligned(static_cast<size_t>(p.rows * row_bytes));
  // Within the bound: fewer workers side by side, then a chunk per channel.
  while (p.bytes() > kScratchBound && p.workers() > 1) {
    if (p.outer > 1) --p.outer;
    else --p.inner;
  }
  if (p.bytes() > kScratchBound && p.chunk_taps > khw && !s.nhwc) {
    p.chunks = s.cg, p.chunk_taps = khw;
    p.col_bytes = ScratchCarver::aligned(static_cast<size_t>(s.ow * khw) * sizeof(float));
  }
  if (s.nhwc) {
    // (ceil((kh - 1) dilation_h / stride_h) without adding to a stride that
    // may be near INT64_MAX: found by fuzz_conv2d.)
    const int64_t reach = (s.kh - 1) * s.dilation_h;
    const int64_t twice = reach == 0 ? 0 : (reach - 1) / s.stride_h + 1;
    if (4 * twice * p.inner <= s.oh) p.slabs = p.inner;
    else p.shared = p.inner;
  }
  return p;
}

// The output rows [begin, end) whose taps reach image rows [ih0, ih1).
struct RowSpan {
  int64_t begin, end;
};
RowSpan output_rows_reaching(const ConvShape &s, int64_t ih0, int64_t ih1) {
  const int64_t first = ih0 + s.pad_h - (s.kh - 1) * s.dilation_h;
  const int64_t begin = first <= 0 ? 0 : (first + s.stride_h - 1) / s.stride_h;
  const int64_t end = std::min(s.oh, (ih1 - 1 + s.pad_h) / s.stride_h + 1);
  return {begin, std::max(begin, end)};
}

// Calls f(ci, pixel, count) on the runs of channels [c0, c1) x an image's
// pixels [p0, p1) that are contiguous in memory, so that zeroing the sum and
// rounding it into diff_src sweep along lines: `count` pixels from (ci,
// pixel) in NCHW, `count` channels from (ci, pixel) in NHWC. (Channel-outer
// loops over an NHWC image touched a line per element: 32 % of res3a's NHWC
// time.)
template <class F>
void for_each_channel_run(const ConvShape &s, int64_t c0, int64_t c1, int64_t p0, int64_t p1,
                          F f) {
  if (s.nhwc) {
    if (c1 > c0)
      for (int64_t pixel = p0; pixel < p1; ++pixel) f(c0, pixel, c1 - c0);
  } else if (p1 > p0) {
    for (int64_t ci = c0; ci < c1; ++ci) f(ci, p0, p1 - p0);
  }
}

template <class Storage>
const char *backward_data(const core::Conv2dArgs &a, core::CpuIsa isa, int threads,
                          Scratch &scratch) {
  using T = typename Storage::type;
  constexpr bool in_place = std::is_same_v<T, float>;  // f32 sums in diff_src itself
  const ConvShape s(a);
  const dlk_dtype dtype = a.desc.src_type;
  const DataPlan plan = plan_data(s, in_place, threads);
  auto *base = static_cast<unsigned char *>(
      band_scratch(scratch, s, plan.bytes(), "dlk_conv2d_backward_data"));
  const int64_t taps = s.taps(), khw = s.kh * s.kw;
  // Fewer than 32 taps fill one 32-column panel of the pixel-major GEMM
  // poorly (VGG-16 conv1_1, 27 taps in chunks of 9 and 18: 0.60x oneDNN);
  // tap-major they are rows of the 14-row tiles.
  const bool tap_major = !s.nhwc && (s.kg < kTapMajorBelowK || s.taps() < 32);
  const char *kernel = "";

  parallel_for(s.n * s.groups, plan.outer, [&](int64_t item, int outer_thread) {
    const int64_t image = item / s.groups, g = item % s.groups;
    T *diff_src = static_cast<T *>(a.diff_src) + s.src_offset(image, g);
    const int64_t cst = s.src_channel_stride(), pst = s.src_pixel_stride();
    const kernels::Col2imImage sum = [&]() -> kernels::Col2imImage {
      if constexpr (in_place) return {diff_src, cst, pst};
      else
        return {reinterpret_cast<float *>(base + plan.col_bytes * plan.workers() +
                                          plan.image_bytes * outer_thread),
                s.group_channel_stride(), s.group_pixel_stride()};
    }();
    const T *weights = static_cast<const T *>(a.weights) + g * s.kg * taps;
    const T *diff_dst = static_cast<const T *>(a.diff_dst) + s.dst_offset(image, g);
    const int64_t cst_d = s.dst_channel_stride(), pst_d = s.dst_pixel_stride();
    parallel_for(plan.chunks * plan.slabs, plan.inner, [&](int64_t part, int inner_thread) {
      float *col = reinterpret_cast<float *>(base + plan.col_bytes * (outer_thread + inner_thread));
      const int64_t chunk = part / plan.slabs, slab = part % plan.slabs;
      const int64_t c0 = s.cg * chunk / plan.chunks, c1 = s.cg * (chunk + 1) / plan.chunks;
      const int64_t t0 = c0 * khw, ct = (c1 - c0) * khw;
      // The slab's image rows [ih0, ih1); col2im sees them as an image of
      // their own whose top padding covers the rows above, so that taps
      // outside the slab are dropped as padding ones are.
      const int64_t ih0 = s.h * slab / plan.slabs, ih1 = s.h * (slab + 1) / plan.slabs;
      ConvShape slab_shape = s;
      slab_shape.h = ih1 - ih0, slab_shape.pad_h = s.pad_h + ih0;
      const kernels::Col2imImage slab_sum{sum.data + ih0 * s.w * sum.pixel_stride,
                                          sum.channel_stride, sum.pixel_stride};
      // Channel parts for the threads that share this slab's GEMMs.
      const auto for_each_part = [&](auto body) {
        parallel_for(plan.shared, plan.shared, [&](int64_t q, int) {
          body(c0 + (c1 - c0) * q / plan.shared, c0 + (c1 - c0) * (q + 1) / plan.shared);
        });
      };
      for_each_part([&](int64_t p0, int64_t p1) {
        for_each_channel_run(s, p0, p1, ih0 * s.w, ih1 * s.w,
                             [&](int64_t ci, int64_t pixel, int64_t count) {
                               std::fill_n(sum.data + ci * sum.channel_stride +
                                               pixel * sum.pixel_stride,
                                           count, 0.0f);
                             });
      });
      const RowSpan reaching = output_rows_reaching(s, ih0, ih1);
      for (int64_t oy0 = reaching.begin; oy0 < reaching.end; oy0 += plan.rows) {
        const int64_t oy1 = std::min(reaching.end, oy0 + plan.rows), pixels = (oy1 - oy0) * s.ow;
        const T *band = diff_dst + oy0 * s.ow * pst_d;
        // C (pixels x ct) = diff_dst^T (pixels x kg) * the chunk's columns of
        // the weights (kg x ct), or tap-major C^T = weights^T * diff_dst.
        const int64_t ld = tap_major ? pixels : ct;
        const char *name =
            tap_major
                ? gemm_strided(single_gemm(ct, pixels, s.kg, {weights + t0, dtype, 1, taps, 0},
                                           {band, dtype, cst_d, pst_d, 0}, col, DLK_DTYPE_F32,
                                           ld, 1),
                               isa, 1)
                : gemm_strided(single_gemm(pixels, ct, s.kg, {band, dtype, pst_d, cst_d, 0},
                                           {weights + t0, dtype, taps, 1, 0}, col, DLK_DTYPE_F32,
                                           ld, 1),
                               isa, plan.shared);
        if (outer_thread + inner_thread == 0) kernel = name;
        for_each_part([&](int64_t p0, int64_t p1) {
          col2im_add(slab_shape, col, ld, tap_major, oy0, oy1, p0, p1, slab_sum, isa);
        });
      }
      if constexpr (!in_place)
        for_each_part([&](int64_t p0, int64_t p1) {
          for_each_channel_run(s, p0, p1, ih0 * s.w, ih1 * s.w,
                               [&](int64_t ci, int64_t pixel, int64_t count) {
                                 store_run<Storage>(
                                     sum.data + ci * sum.channel_stride + pixel * sum.pixel_stride,
                                     count, diff_src + ci * cst + pixel * pst,
                                     gemm_kernel_set(isa).round_bf16);
                               });
        });
    });
  });
  return kernel;
}

// A 1x1 convolution without padding needs no col2im: its taps are its
// channels, so diff_src on the output's pixel grid is one product per group
// (cg = c / groups, kg = k / groups),
//
//   diff_src^T (pixels x cg) = diff_dst^T (pixels x kg) * weights (kg x cg),
//
// the images the GEMM's batch (B the weights as they lie, C diff_src: f16/bf16
// rounded once in the GEMM's store). At stride 1 that grid is diff_src's own.
// At stride > 1 (ResNet-50's projections) C is a compact image of the grid's
// pixels in the context's scratch, kCompactBytes of images at a time, which
// scatter_strided spreads into diff_src with zeros between.
//
// NHWC's C is row-major, pixel-major rows as the col2im route's, and it beat
// that route on every ResNet-50 1x1 layer (Zen 4, 1 thread, best of 45
// interleaved calls: 56x56 1.58x, 28x28 1.46-1.79x, 14x14 1.08-1.89x, 7x7
// 1.06x). NCHW's C is column-major, which the GEMM turns around to run along
// pixels, 32 columns a panel: with few pixels the panels are poorly filled and
// its A (the weights, each read `pixels` times) is packed for little work, so
// NCHW below kPointwiseMinPixels keeps the col2im route, whose GEMM is
// pixel-major (7x7: 0.68-0.75x of col2im's speed; 14x14 0.96-1.05x on 1
// thread, 0.72-1.16x on 2; 28x28 1.08-1.22x; 56x56 1.18-1.87x), unless the
// GEMM keeps C column-major (gemm_keeps_column_major_c: weights rows 4 KiB
// apart, 1024 or 2048 channels) and runs pixel-major itself, its product
// stored down diff_src's channel planes: res5b_1x1a 1.24x, res5a_proj 1.16x,
// res4b_1x1a 1.18x against col2im (Intel Xeon model 167, 1 thread).
// (A stride > 1 image too large for kCompactBytes takes the col2im route too.)
constexpr size_t kCompactBytes = size_t{16} << 20;

// Group g's product for images [image, image + count) into c (diff_dst's
// grid, c channels), pixel-major: C (pixels x c/groups) = diff_dst^T * the
// weights, the weights B as they lie. NCHW's C is column-major, which the GEMM
// turns around (weights^T as A) unless it keeps it (gemm_keeps_column_major_c).
template <class T>
core::GemmArgs pointwise_gemm(const core::Conv2dArgs &a, const ConvShape &s, int64_t g,
                              int64_t image, int64_t count, T *c, bool pixel_major) {
  const dlk_dtype dtype = a.desc.src_type;
  const int64_t pixels = s.pixels();
  core::GemmArgs gemm = single_gemm(
      pixels, s.cg, s.kg,
      {static_cast<const T *>(a.diff_dst) + s.dst_offset(image, g), dtype, s.dst_pixel_stride(),
       s.dst_channel_stride(), s.k * pixels},
      {static_cast<const T *>(a.weights) + g * s.kg * s.cg, dtype, s.cg, 1, 0},
      c + (pixel_major ? g * s.cg : g * s.cg * pixels), dtype, pixel_major ? s.c : 1,
      pixel_major ? 1 : pixels);
  gemm.batch = count;
  gemm.batch_stride_c = s.c * pixels;
  return gemm;
}

// How a 1x1 convolution without padding runs (none: the GEMM and col2im).
enum class PointwiseRoute { none, in_place, turned };

PointwiseRoute pointwise_route(const core::Conv2dArgs &a, const ConvShape &s, core::CpuIsa isa) {
  constexpr int64_t kPointwiseMinPixels = 512;
  // bf16 in k-pairs (vdpbf16ps, AMD) from 128 pixels where diff_src has more
  // channels than diff_dst: 14 x 14 res4b_1x1a (1024 from 256) and res5a_1x1a
  // (1024 from 512) ran 1.15-1.35x col2im's route at batch 1 on 1 thread,
  // 1.05-1.38x on 2, 1.16-1.36x at batch 32; with fewer (res4a_1x1b,
  // res4a_proj) 1.03-1.04x on 1 thread but 0.85-0.93x on 2; 7 x 7 (res5a_1x1b,
  // res5a_proj) 0.74-0.76x (Zen 4).
  constexpr int64_t kPointwisePairsMinPixels = 128;
  const bool strided = s.stride_h > 1 || s.stride_w > 1;
  const size_t image_bytes = static_cast<size_t>(s.c * s.pixels()) * sizeof(float);
  if (s.kh != 1 || s.kw != 1 || s.pad_h != 0 || s.pad_w != 0 || s.n == 0 ||
      (strided && image_bytes > kCompactBytes))
    return PointwiseRoute::none;
  const bool pairs = isa == core::CpuIsa::avx512 && a.desc.src_type == DLK_DTYPE_BF16 &&
                     bf16_dot_outpaces_fma(core::cpu_features());
  if (s.nhwc ||
      s.pixels() >= (pairs && s.c > s.k ? kPointwisePairsMinPixels : kPointwiseMinPixels) ||
      gemm_keeps_column_major_c(
          pointwise_gemm(a, s, 0, 0, 1, static_cast<float *>(nullptr), s.nhwc), isa))
    return PointwiseRoute::in_place;
  // Below those floors, bf16 in k-pairs of one image: the product pixel-major
  // in the scratch (NHWC's GEMM, its rows the pixels), then turned into
  // diff_src's planes by 16 x 16 transposes: res4a_1x1b, res4a_proj,
  // res5a_1x1b, res5a_proj and res5b_1x1a ran 1.08-1.32x col2im's route on 1
  // thread, 0.99-1.23x on 2 (res5b_1x1a 0.59 -> 0.73-0.77x oneDNN-any); at
  // batch 32 0.68-1.48x, and f32 0.90-1.05x at batch 1 (Zen 4).
  // (Strided, the turned image and the compact one both in kCompactBytes.)
  return pairs && s.n == 1 && !(strided && 2 * image_bytes > kCompactBytes)
             ? PointwiseRoute::turned
             : PointwiseRoute::none;
}

// Images [image, image + count) into c: diff_dst's layout with c channels
// (diff_src's own at stride 1), starting at channel 0 of the first image.
template <class T>
const char *pointwise_product(const core::Conv2dArgs &a, const ConvShape &s, int64_t image,
                              int64_t count, T *c, bool pixel_major, core::CpuIsa isa,
                              int threads) {
  return for_each_group(s, threads, [&](int64_t g, int team) {
    return gemm_strided(pointwise_gemm(a, s, g, image, count, c, pixel_major), isa, team);
  });
}

// count images of `pixel_major` (pixels x c each) turned into NCHW's planes
// at out (c x pixels each), the threads splitting images and channels.
template <class T>
void turn_to_planes(const ConvShape &s, const T *pixel_major, int64_t count, T *out,
                    int threads) {
  const int64_t pixels = s.pixels(), parts = std::min<int64_t>(threads, (s.c + 15) / 16);
  parallel_for(count * parts, threads, [&](int64_t item, int) {
    const int64_t image = item / parts, part = item % parts;
    const int64_t c0 = s.c * part / parts / 16 * 16;
    const int64_t c1 = part + 1 == parts ? s.c : s.c * (part + 1) / parts / 16 * 16;
    kernels::transpose_avx512(pixel_major + image * pixels * s.c + c0, pixels, c1 - c0, s.c,
                              sizeof(T), out + (image * s.c + c0) * pixels, pixels);
  });
}

// diff_src of images [image, image + count) from their compact images: pixel
// (y, x) is the compact one (y / stride_h, x / stride_w) where both divide, else 0.
template <class T>
void scatter_strided(const ConvShape &s, const T *compact, int64_t image, int64_t count,
                     T *diff_src, int threads) {
  const int64_t plane = s.h * s.w, grid = s.pixels();
  if (!s.nhwc) {  // a plane (image, channel) at a time
    parallel_for(count * s.c, threads, [&](int64_t item, int) {
      const T *in = compact + item * grid;
      T *out = diff_src + (image * s.c + item) * plane;
      std::fill_n(out, plane, T{});
      for (int64_t oy = 0; oy < s.oh; ++oy) {
        T *row = out + oy * s.stride_h * s.w;
        for (int64_t ox = 0; ox < s.ow; ++ox) row[ox * s.stride_w] = in[oy * s.ow + ox];
      }
    });
    return;
  }
  parallel_for(count * s.h, threads, [&](int64_t item, int) {  // an image row at a time
    const int64_t y = item % s.h;
    T *out = diff_src + (image * s.h + item) * s.w * s.c;
    if (y % s.stride_h != 0) {
      std::fill_n(out, s.w * s.c, T{});
      return;
    }
    const T *in = compact + ((item / s.h) * grid + y / s.stride_h * s.ow) * s.c;
    for (int64_t x = 0; x < s.w; ++x, out += s.c)
      if (x % s.stride_w == 0) std::copy_n(in + x / s.stride_w * s.c, s.c, out);
      else std::fill_n(out, s.c, T{});
  });
}

template <class Storage>
const char *backward_data_pointwise(const core::Conv2dArgs &a, PointwiseRoute route,
                                    core::CpuIsa isa, int threads, Scratch &scratch) {
  using T = typename Storage::type;
  const ConvShape s(a);
  T *diff_src = static_cast<T *>(a.diff_src);
  const bool strided = s.stride_h > 1 || s.stride_w > 1;
  const bool turned = route == PointwiseRoute::turned;
  const bool pixel_major = s.nhwc || turned;
  if (!strided && !turned)
    return pointwise_product(a, s, 0, s.n, diff_src, pixel_major, isa, threads);
  // Per pass: the product on diff_dst's grid (pixel-major where turned) and,
  // where both, its turned NCHW image.
  const int buffers = strided && turned ? 2 : 1;
  const size_t image_bytes = static_cast<size_t>(s.c * s.pixels()) * sizeof(T);
  const int64_t per_pass = std::clamp<int64_t>(
      static_cast<int64_t>(kCompactBytes / (buffers * image_bytes)), 1, s.n);
  T *product = static_cast<T *>(scratch.get(
      buffers * per_pass * image_bytes, "dlk_conv2d_backward_data",
      "the 1x1 convolution's gradient on its output grid, c (" + std::to_string(s.c) +
          ") x oh (" + std::to_string(s.oh) + ") x ow (" + std::to_string(s.ow) + "),"));
  T *planes = turned && strided ? product + per_pass * s.c * s.pixels() : product;
  const char *kernel = "";
  for (int64_t image = 0; image < s.n; image += per_pass) {
    const int64_t count = std::min(per_pass, s.n - image);
    kernel = pointwise_product(a, s, image, count, product, pixel_major, isa, threads);
    if (turned)
      turn_to_planes(s, product, count,
                     strided ? planes : diff_src + image * s.c * s.pixels(), threads);
    if (strided) scatter_strided(s, planes, image, count, diff_src, threads);
  }
  return kernel;
}

}  // namespace

// The stride-1 backward-data pass as the forward pass of another convolution:
// diff_src (c x h x w) = conv(diff_dst, the weights turned around), whose input
// is diff_dst (k channels, oh x ow), output diff_src, weights W'[ci][kk][r][s] =
// W[kk][ci][kh-1-r][kw-1-s] per group, padding (kh-1) * dilation - pad (negative
// where the padding exceeds the kernel's reach: those taps never read diff_dst).
// The arguments of that convolution, its weights at `weights`.
core::Conv2dArgs conv2d_turned_convolution(const core::Conv2dArgs &a, const void *weights) {
  const ConvShape s(a);
  core::Conv2dArgs t;
  t.desc = a.desc;
  t.desc.c = a.desc.k, t.desc.h = a.oh, t.desc.w = a.ow, t.desc.k = a.desc.c;
  t.desc.pad_h = (s.kh - 1) * s.dilation_h - s.pad_h;
  t.desc.pad_w = (s.kw - 1) * s.dilation_w - s.pad_w;
  t.desc.relu = 0;
  t.c_per_group = s.kg, t.k_per_group = s.cg;
  t.oh = s.h, t.ow = s.w;
  t.src = a.diff_dst, t.weights = weights, t.dst = a.diff_src;
  return t;
}

namespace {

// The weights of the turned convolution, in its layout (OIHW, or OHWI for
// NHWC). NHWC on the AVX-512 tier by a transpose a tap and group (the
// element loop read each tap's channel 512 bytes from the last: it took
// longer than res4b_3x3's bf16 backward data on AMX at batch 1).
template <class T>
void turn_weights(const core::Conv2dArgs &a, core::CpuIsa isa, int threads, T *turned) {
  const ConvShape s(a);
  const int64_t taps = s.kh * s.kw;
  const T *weights = static_cast<const T *>(a.weights);
  if (s.nhwc && isa == core::CpuIsa::avx512) {
    // Tap t of group g: kg x cg (row stride taps x cg) into cg x kg at the
    // reversed tap (row stride taps x kg).
    parallel_for(s.groups * taps, threads, [&](int64_t unit, int) {
      const int64_t g = unit / taps, t = unit % taps;
      kernels::transpose_avx512(weights + g * s.kg * taps * s.cg + t * s.cg, s.kg, s.cg,
                                taps * s.cg, sizeof(T),
                                turned + g * s.cg * taps * s.kg + (taps - 1 - t) * s.kg,
                                taps * s.kg);
    });
    return;
  }
  parallel_for(s.groups * s.cg, threads, [&](int64_t row, int) {
    const int64_t g = row / s.cg, ci = row % s.cg;
    for (int64_t kk = 0; kk < s.kg; ++kk)
      for (int64_t r = 0; r < s.kh; ++r)
        for (int64_t q = 0; q < s.kw; ++q) {
          const int64_t from = (g * s.kg + kk) * s.taps() + s.tap(ci, s.kh - 1 - r, s.kw - 1 - q);
          // The turned convolution's tap (kk, r, q) with kg input channels.
          const int64_t to = s.nhwc ? (r * s.kw + q) * s.kg + kk : kk * taps + r * s.kw + q;
          turned[row * s.kg * taps + to] = weights[from];
        }
  });
}

// For the shapes whose col2im band of a single output row exceeds the scratch
// bound (a kernel thousands of taps wide), the turned convolution on the GEMM:
// it needs only the weights' size.
template <class Storage>
const char *backward_data_transposed(const core::Conv2dArgs &a, core::CpuIsa isa, int threads,
                                     Scratch &scratch) {
  using T = typename Storage::type;
  const ConvShape s(a);
  T *turned = static_cast<T *>(scratch.get(static_cast<size_t>(s.k * s.taps()) * sizeof(T),
                                           "dlk_conv2d_backward_data", "the turned weights"));
  turn_weights(a, isa, threads, turned);
  return conv2d_forward_float_gemm(conv2d_turned_convolution(a, turned), isa, threads);
}

// The turned convolution on the AMX implicit-GEMM kernel (bf16 at stride 1
// where bf16 runs on AMX: conv2d_amx_applies on the turned arguments, their
// weights turned), its weights packed straight into the kernel's panels
// (kernels::conv2d_amx_pack_turned_weights; NCHW's staged as KRSC first).
// Intel Xeon model 167, ResNet-50 at batch 1, 1 thread, x oneDNN-any,
// against the GEMM and col2im: res2a_3x3 0.11 -> 0.51 NCHW, 0.20 -> 0.69
// NHWC; res3b_3x3 0.19 -> 0.37, 0.34 -> 0.42. (Turned into KRSC and packed
// from there, three passes over NCHW's weights and two over NHWC's, the
// weights took 63 % of res4b_3x3's NHWC time at batch 1; packed in one pass,
// res4b_3x3 0.26 -> 0.45-0.68 NCHW, 0.40 -> 0.62-0.69 NHWC.)
// With the panels packed before the call (dlk_conv2d_weights_create_for), the
// kernel has no floor on the pixels: res5b_3x3 leaves the GEMM and col2im too.
struct AmxBackwardData {
  AmxBackwardData(const core::Conv2dArgs &a, int threads, bool prepacked)
      : turned(conv2d_turned_convolution(a, a.weights)), plan(turned, threads) {
    const auto bytes_of = [](int64_t elems) {
      return ScratchCarver::aligned(static_cast<size_t>(elems) * sizeof(uint16_t));
    };
    panel_bytes = prepacked ? 0 : bytes_of(plan.weight_elems);
    // NCHW's KRSC stage (as many elements as the turned convolution's own) is
    // done with before the forward's workspaces are used.
    const size_t stage_bytes = prepacked ? 0 : bytes_of(plan.turned_weight_elems);
    rest_bytes = std::max(stage_bytes, plan.bytes - plan.weights_bytes);
  }
  size_t bytes() const { return panel_bytes + rest_bytes; }
  core::Conv2dArgs turned;
  kernels::AmxConvPlan plan;
  size_t panel_bytes = 0, rest_bytes = 0;  // the panels; the stage or the workspaces
};

bool runs_amx(const core::Conv2dArgs &a, core::CpuIsa isa, int threads, bool prepacked) {
  const dlk_conv2d_desc &d = a.desc;
  if (d.stride_h != 1 || d.stride_w != 1 || !lowers_to_amx_gemm(a, isa)) return false;
  const AmxBackwardData amx(a, threads, prepacked);
  return kernels::conv2d_amx_applies(
             amx.turned, threads,
             prepacked ? kernels::AmxWeights::prepacked : kernels::AmxWeights::turned) &&
         amx.bytes() <= kScratchBound;
}

void backward_data_amx(const core::Conv2dArgs &a, int threads, Scratch &scratch,
                       const kernels::AmxConvWeights *prepacked) {
  const AmxBackwardData amx(a, threads, prepacked != nullptr);
  auto *base = static_cast<unsigned char *>(
      scratch.get(amx.bytes(), "dlk_conv2d_backward_data",
                  prepacked ? "the padded diff_dst"
                            : "the turned weights' panels and the padded diff_dst"));
  unsigned char *rest = base + amx.panel_bytes;
  kernels::AmxConvWeights panels{base, nullptr};
  if (prepacked) panels = *prepacked;
  else
    kernels::conv2d_amx_pack_turned_weights(a, threads, amx.plan,
                                            kernels::conv2d_amx_reversed_taps(a.desc), base,
                                            rest);
  kernels::conv2d_amx_forward(amx.turned, threads, amx.plan, rest, &panels);
}

// The turned convolution on the channel-lane kernel (f32, and bf16 where it
// runs in k-pairs; NCHW and NHWC; stride 1, or 2 x 2 in phases; one group,
// padding within the kernel's reach, many channels and pixels:
// conv2d_channel_lanes_applies on the turned arguments), the weights turned as
// the kernel packs (f32, bf16 NHWC) or pairs (bf16 NCHW) them.
bool runs_channel_lanes(const core::Conv2dArgs &a, core::CpuIsa isa, int threads,
                        bool prepacked) {
  const dlk_dtype type = a.desc.src_type;
  return isa == core::CpuIsa::avx512 && (type == DLK_DTYPE_F32 || type == DLK_DTYPE_BF16) &&
         !lowers_to_amx_gemm(a, isa) &&
         kernels::conv2d_channel_lanes_applies(conv2d_turned_convolution(a, a.weights), threads,
                                               true, prepacked);
}

void backward_data_channel_lanes(const core::Conv2dArgs &a, int threads, Scratch &scratch,
                                 const kernels::ChannelLanesWeights *prepacked) {
  const core::Conv2dArgs t = conv2d_turned_convolution(a, a.weights);
  const kernels::ChannelLanesPlan plan(t, threads, true);
  kernels::conv2d_channel_lanes_avx512(
      t, threads, plan,
      prepacked ? scratch.get(plan.bytes - plan.weights_bytes, "dlk_conv2d_backward_data",
                              "the padded images of diff_dst")
                : scratch.get(plan.bytes, "dlk_conv2d_backward_data",
                              "the turned weights packed and the padded images of diff_dst"),
      prepacked);
}

// Grouped: each image's groups' turned convolutions on the channel-lane
// kernel, a thread each (conv2d_group_views.hpp), where its rule takes a
// group, with the pixel floor of weights packed before (a group's are few).
bool runs_channel_lanes_groups(const core::Conv2dArgs &a, core::CpuIsa isa, int threads) {
  const dlk_conv2d_desc &d = a.desc;
  if (d.groups <= 1) return false;
  // NHWC in phases over few pixels copies a group's diff_dst and diff_src for
  // little work: ResNeXt-50 conv5_1 (49 pixels a phase) ran 0.91-0.93x GEMM +
  // col2im.
  if (d.format == DLK_FORMAT_NHWC && d.stride_h == 2 &&
      d.h * d.w / 4 < kernels::kChannelLanesMinPixels)
    return false;
  const core::Conv2dArgs group = conv2d_group_of_image(a, GroupPass::backward_data, 0, 0);
  return runs_channel_lanes(group, isa, 1, /*prepacked=*/true) &&
         conv2d_group_views_fit(
             a, GroupPass::backward_data, threads,
             kernels::ChannelLanesPlan(conv2d_turned_convolution(group, group.weights), 1, true)
                 .bytes);
}

void backward_data_channel_lanes_groups(const core::Conv2dArgs &a, int threads,
                                        Scratch &scratch) {
  const core::Conv2dArgs first = conv2d_group_of_image(a, GroupPass::backward_data, 0, 0);
  const kernels::ChannelLanesPlan plan(conv2d_turned_convolution(first, first.weights), 1, true);
  for_each_group_of_image(
      a, GroupPass::backward_data, threads, plan.bytes, scratch, "dlk_conv2d_backward_data",
      "each thread's turned weights and padded diff_dst of a group",
      [&](const core::Conv2dArgs &group, void *own) {
        kernels::conv2d_channel_lanes_avx512(conv2d_turned_convolution(group, group.weights), 1,
                                             plan, own);
      });
}

// The turned convolution on the wide-row kernel (NCHW, stride 1, one group,
// padding within the kernel's reach, f32, f16 and bf16 as the forward takes
// them: conv2d_wide_rows_applies on the turned arguments), the weights turned
// (and widened) in scratch.
bool runs_wide_rows(const core::Conv2dArgs &a, core::CpuIsa isa, int threads) {
  const dlk_conv2d_desc &d = a.desc;
  return isa == core::CpuIsa::avx512 && d.stride_h == 1 && d.stride_w == 1 &&
         !lowers_to_amx_gemm(a, isa) &&
         kernels::conv2d_wide_rows_applies(conv2d_turned_convolution(a, a.weights), threads, true);
}

void backward_data_wide_rows(const core::Conv2dArgs &a, int threads, Scratch &scratch) {
  const core::Conv2dArgs t = conv2d_turned_convolution(a, a.weights);
  const kernels::WideRowsPlan plan(t, threads, true);
  kernels::conv2d_wide_rows_avx512(
      t, threads, plan,
      scratch.get(plan.bytes, "dlk_conv2d_backward_data",
                  "the turned weights, the padded images of diff_dst and the taps' offsets"));
}

// Grouped with fewer than 16 channels a group in diff_src (stride 1): each
// image's groups' turned convolutions on the wide-row kernel, a thread each,
// where its rule takes a group as one (`of_group`; NHWC's groups turned into
// NCHW planes and back, GroupLayout::nchw); GEMM + col2im per group reused
// each diff_dst panel for cg channels.
bool runs_wide_rows_groups(const core::Conv2dArgs &a, core::CpuIsa isa, int threads) {
  const dlk_conv2d_desc &d = a.desc;
  if (d.groups <= 1 || a.c_per_group >= 16 || isa != core::CpuIsa::avx512 || d.stride_h != 1 ||
      d.stride_w != 1 || lowers_to_amx_gemm(a, isa))
    return false;
  const core::Conv2dArgs group =
      conv2d_group_as_nchw(a, GroupPass::backward_data, 0, 0, nullptr, nullptr, nullptr);
  const core::Conv2dArgs turned = conv2d_turned_convolution(group, group.weights);
  return kernels::conv2d_wide_rows_applies(turned, 1, true, /*of_group=*/true) &&
         conv2d_group_views_fit(a, GroupPass::backward_data, threads,
                                kernels::WideRowsPlan(turned, 1, true).bytes, GroupLayout::nchw);
}

void backward_data_wide_rows_groups(const core::Conv2dArgs &a, int threads, Scratch &scratch) {
  const core::Conv2dArgs first =
      conv2d_group_as_nchw(a, GroupPass::backward_data, 0, 0, nullptr, nullptr, nullptr);
  const kernels::WideRowsPlan plan(conv2d_turned_convolution(first, first.weights), 1, true);
  for_each_group_of_image(
      a, GroupPass::backward_data, threads, plan.bytes, scratch, "dlk_conv2d_backward_data",
      "each thread's turned weights and padded diff_dst of a group",
      [&](const core::Conv2dArgs &group, void *own) {
        kernels::conv2d_wide_rows_avx512(conv2d_turned_convolution(group, group.weights), 1, plan,
                                         own);
      },
      GroupLayout::nchw);
}

}  // namespace

bool conv2d_backward_data_packed_runs_channel_lanes(const core::Conv2dArgs &args,
                                                    core::CpuIsa isa, int threads) {
  return !(isa == core::CpuIsa::avx512 && kernels::conv2d_direct_backward_data_applies(args)) &&
         runs_channel_lanes(args, isa, threads, true);
}

bool conv2d_backward_data_packed_runs_amx(const core::Conv2dArgs &args, core::CpuIsa isa,
                                          int threads) {
  return !(isa == core::CpuIsa::avx512 && kernels::conv2d_direct_backward_data_applies(args)) &&
         runs_amx(args, isa, threads, true);
}

bool conv2d_backward_data_packed_runs_amx_phases(const core::Conv2dArgs &args, core::CpuIsa isa,
                                                 int threads) {
  return !(isa == core::CpuIsa::avx512 && kernels::conv2d_direct_backward_data_applies(args)) &&
         backward_data_amx_phases_apply(args, isa, threads, true);
}

core::OpResult conv2d_backward_data(const core::Conv2dArgs &args, core::CpuIsa isa, int threads,
                                    Scratch &scratch, const PrepackedConv2dWeights &prepacked) {
  if (isa == core::CpuIsa::avx512 && kernels::conv2d_direct_backward_data_applies(args)) {
    const kernels::DirectRowsPlan plan(args, threads, true);
    kernels::conv2d_direct_backward_data_avx512(
        args, plan,
        scratch.get(plan.bytes, "dlk_conv2d_backward_data",
                    "the direct kernel's turned weights and padded diff_dst"));
    return {"avx512:conv2d_direct_backward_data_f32", 0};
  }
  const ConvShape s(args);
  const char *packed_name = ":prepacked";
  if (runs_amx(args, isa, threads, prepacked.amx != nullptr)) {
    backward_data_amx(args, threads, scratch, prepacked.amx);
    return {std::string("turned:") + kernels::conv2d_amx_name(args.desc) +
                (prepacked.amx ? packed_name : ""),
            0};
  }
  if (backward_data_amx_phases_apply(args, isa, threads, prepacked.amx_phases != nullptr)) {
    backward_data_amx_phases(args, threads, scratch, prepacked.amx_phases);
    return {std::string("phases:") + kernels::conv2d_amx_name(args.desc) +
                (prepacked.amx_phases ? packed_name : ""),
            0};
  }
  if (runs_channel_lanes(args, isa, threads, prepacked.lanes != nullptr)) {
    backward_data_channel_lanes(args, threads, scratch, prepacked.lanes);
    const bool bf16 = args.desc.src_type == DLK_DTYPE_BF16;
    return {std::string("turned:avx512:channel_lanes_") + (bf16 ? "bf16" : "f32") +
                (args.desc.format == DLK_FORMAT_NHWC ? "_nhwc" : "") +
                (prepacked.lanes ? packed_name : ""),
            0};
  }
  if (runs_channel_lanes_groups(args, isa, threads)) {
    backward_data_channel_lanes_groups(args, threads, scratch);
    const bool bf16 = args.desc.src_type == DLK_DTYPE_BF16;
    return {std::string("turned:avx512:channel_lanes_") + (bf16 ? "bf16" : "f32") +
                (args.desc.format == DLK_FORMAT_NHWC ? "_nhwc" : "") + ":groups",
            0};
  }
  if (backward_data_wide_rows_phases_apply(args, isa, threads)) {
    backward_data_wide_rows_phases(args, threads, scratch);
    return {std::string("phases:") + kernels::conv2d_wide_rows_name(args.desc.src_type, false) +
                ":groups",
            0};
  }
  if (runs_wide_rows_groups(args, isa, threads)) {
    backward_data_wide_rows_groups(args, threads, scratch);
    return {std::string(kernels::conv2d_wide_rows_name(args.desc.src_type, true)) + ":groups", 0};
  }
  if (runs_wide_rows(args, isa, threads)) {
    backward_data_wide_rows(args, threads, scratch);
    return {kernels::conv2d_wide_rows_name(args.desc.src_type, true), 0};
  }
  if (const PointwiseRoute route = pointwise_route(args, s, isa);
      route != PointwiseRoute::none) {
    const char *kernel = with_float_storage(args.desc.src_type, [&](auto storage) {
      return backward_data_pointwise<decltype(storage)>(args, route, isa, threads, scratch);
    });
    return {std::string("gemm:") + kernel, 0};
  }
  if (s.stride_h == 1 && s.stride_w == 1 &&
      plan_data(s, args.desc.src_type == DLK_DTYPE_F32, threads).bytes() > kScratchBound) {
    const char *kernel = with_float_storage(args.desc.src_type, [&](auto storage) {
      return backward_data_transposed<decltype(storage)>(args, isa, threads, scratch);
    });
    return {std::string("turned:") + kernel, 0};
  }
  const char *kernel = with_float_storage(args.desc.src_type, [&](auto storage) {
    return backward_data<decltype(storage)>(args, isa, threads, scratch);
  });
  return {std::string("gemm+col2im:") + kernel, 0};
}

}  // namespace dlk::cpu
