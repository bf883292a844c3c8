// Convolution backward-data (float types): GEMM then col2im, on bands of
// output rows. col (pixels x taps) = diff_dst^T * weights, pixel-major: the
// GEMM's rows are the band's pixels and its B the weights as they are stored,
// packed in one sweep along each row. col2im (conv2d_col2im.hpp) then adds each
// band into the image of the group: diff_src itself for f32 (zeroed first),
// else an f32 image rounded once into diff_src. Bands and images live in the
// context's scratch.
//
// Before, col was tap-major (taps x pixels = weights^T * diff_dst): the
// weights were packed as A, 14 taps read from each of k rows far apart (35 %
// of res5b's time, 1 thread), and the 49 pixels of res5a/res5b filled 2 panels
// of 32 columns where they fill 4 micro-rows of 14 now; col2im ran scalar
// loops, with a pass more for f32. Pixel-major, NCHW col2im transposes blocks
// of 32 pixels in registers to add along image rows (kernels/col2im_tier.inc).
// With few output channels per group the GEMM is short (k = kg) and that
// transpose would weigh more than the GEMM gains: NCHW below kTapMajorBelowK
// keeps col tap-major (LeNet-5 conv1, k = 6: 2.4x the CPU time pixel-major,
// 1 thread, Zen 4).
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
// bound (backward_data_transposed).
#include <algorithm>
#include <string>
#include <type_traits>

#include "backends/cpu_avx512/conv2d_col2im.hpp"
#include "backends/cpu_avx512/conv2d_lowering.hpp"
#include "backends/cpu_avx512/cpu_ops.hpp"
#include "backends/cpu_avx512/float_storage.hpp"
#include "backends/cpu_avx512/gemm_driver.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

// NCHW with fewer output channels per group than this writes col tap-major
// (see the top of the file).
constexpr int64_t kTapMajorBelowK = 32;

// f32 sums straight into diff_src; f16/bf16 into an f32 image of the group.
template <class T>
constexpr bool kSumsInPlace = std::is_same_v<T, float>;

// A band keeps its f32 col, and the f32 image of the group it adds into unless
// that is diff_src.
Bands data_bands(const ConvShape &s, bool in_place, int threads) {
  return plan_bands(s, s.taps() * sizeof(float),
                    in_place ? 0 : s.cg * s.h * s.w * sizeof(float), s.n * s.groups, threads);
}

template <class Storage>
const char *backward_data(const core::Conv2dArgs &a, core::CpuIsa isa, int threads,
                          Scratch &scratch) {
  using T = typename Storage::type;
  constexpr bool in_place = kSumsInPlace<T>;
  const ConvShape s(a);
  const dlk_dtype dtype = a.desc.src_type;
  const Bands bands = data_bands(s, in_place, threads);
  auto *base =
      static_cast<unsigned char *>(band_scratch(scratch, s, bands, "dlk_conv2d_backward_data"));
  const int64_t rows = bands.rows, taps = s.taps();
  const ThreadSplit split = bands.split;
  const char *kernel = "";
  const bool tap_major = !s.nhwc && s.kg < kTapMajorBelowK;

  parallel_for(s.n * s.groups, split.outer, [&](int64_t item, int thread) {
    const int64_t image = item / s.groups, g = item % s.groups;
    ScratchCarver carve(base + bands.bytes_per_band * thread);
    float *col = carve.carve<float>(rows * s.ow * taps);
    T *diff_src = static_cast<T *>(a.diff_src) + s.src_offset(image, g);
    const int64_t cst = s.src_channel_stride(), pst = s.src_pixel_stride();
    kernels::Col2imImage sum;
    if constexpr (in_place)
      sum = {diff_src, cst, pst};
    else
      sum = {carve.carve<float>(s.cg * s.h * s.w), s.group_channel_stride(),
             s.group_pixel_stride()};
    parallel_for(s.cg, split.inner, [&](int64_t ci, int) {
      for (int64_t pixel = 0; pixel < s.h * s.w; ++pixel)
        sum.data[ci * sum.channel_stride + pixel * sum.pixel_stride] = 0.0f;
    });
    const T *weights = static_cast<const T *>(a.weights) + g * s.kg * taps;
    const T *diff_dst = static_cast<const T *>(a.diff_dst) + s.dst_offset(image, g);
    for (int64_t oy0 = 0; oy0 < s.oh; oy0 += rows) {
      const int64_t oy1 = std::min(s.oh, oy0 + rows), pixels = (oy1 - oy0) * s.ow;
      const T *band = diff_dst + oy0 * s.ow * s.dst_pixel_stride();
      const int64_t cst_d = s.dst_channel_stride(), pst_d = s.dst_pixel_stride();
      // C (pixels x taps) = diff_dst^T (pixels x kg) * weights (kg x taps), or
      // tap-major C (taps x pixels) = weights^T * diff_dst.
      const char *name =
          tap_major ? gemm_strided(single_gemm(taps, pixels, s.kg, {weights, dtype, 1, taps, 0},
                                               {band, dtype, cst_d, pst_d, 0}, col, DLK_DTYPE_F32,
                                               pixels, 1),
                                   isa, split.inner)
                    : gemm_strided(single_gemm(pixels, taps, s.kg, {band, dtype, pst_d, cst_d, 0},
                                               {weights, dtype, taps, 1, 0}, col, DLK_DTYPE_F32,
                                               taps, 1),
                                   isa, split.inner);
      if (thread == 0) kernel = name;
      col2im_add(s, col, tap_major, oy0, oy1, sum, isa, split.inner);
    }
    if constexpr (!in_place) {
      parallel_for(s.cg, split.inner, [&](int64_t ci, int) {
        for (int64_t pixel = 0; pixel < s.h * s.w; ++pixel)
          diff_src[ci * cst + pixel * pst] =
              Storage::store(sum.data[ci * sum.channel_stride + pixel * sum.pixel_stride]);
      });
    }
  });
  return kernel;
}

// The stride-1 backward-data pass as the forward pass of another convolution,
// for the shapes whose col2im band of a single output row exceeds the scratch
// bound (a kernel thousands of taps wide): it needs only the weights' size.
// diff_src (c x h x w) = conv(diff_dst, the weights turned around), whose input
// is diff_dst (k channels, oh x ow), output diff_src, weights W'[ci][kk][r][s] =
// W[kk][ci][kh-1-r][kw-1-s] per group, padding (kh-1) * dilation - pad (negative
// where the padding exceeds the kernel's reach: those taps never read diff_dst).
template <class Storage>
const char *backward_data_transposed(const core::Conv2dArgs &a, core::CpuIsa isa, int threads,
                                     Scratch &scratch) {
  using T = typename Storage::type;
  const ConvShape s(a);
  const int64_t taps = s.kh * s.kw;
  T *turned = static_cast<T *>(scratch.get(static_cast<size_t>(s.k * s.taps()) * sizeof(T),
                                           "dlk_conv2d_backward_data", "the turned weights"));
  const T *weights = static_cast<const T *>(a.weights);
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
  core::Conv2dArgs t;
  t.desc = a.desc;
  t.desc.c = a.desc.k, t.desc.h = a.oh, t.desc.w = a.ow, t.desc.k = a.desc.c;
  t.desc.pad_h = (s.kh - 1) * s.dilation_h - s.pad_h;
  t.desc.pad_w = (s.kw - 1) * s.dilation_w - s.pad_w;
  t.desc.relu = 0;
  t.c_per_group = s.kg, t.k_per_group = s.cg;
  t.oh = s.h, t.ow = s.w;
  t.src = a.diff_dst, t.weights = turned, t.dst = a.diff_src;
  return conv2d_forward_float_gemm(t, isa, threads);
}

}  // namespace

core::OpResult conv2d_backward_data(const core::Conv2dArgs &args, core::CpuIsa isa, int threads,
                                    Scratch &scratch) {
  const ConvShape s(args);
  const bool in_place = args.desc.src_type == DLK_DTYPE_F32;
  if (s.stride_h == 1 && s.stride_w == 1 &&
      data_bands(s, in_place, threads).bytes_per_band > kScratchBound) {
    const char *kernel = with_float_storage(args.desc.src_type, [&](auto storage) {
      return backward_data_transposed<decltype(storage)>(args, isa, threads, scratch);
    });
    return {std::string("transposed_conv:") + kernel, 0};
  }
  const char *kernel = with_float_storage(args.desc.src_type, [&](auto storage) {
    return backward_data<decltype(storage)>(args, isa, threads, scratch);
  });
  return {std::string("gemm+col2im:") + kernel, 0};
}

}  // namespace dlk::cpu
