// Convolution backward-data (float types), two lowerings:
//   stride 1:  the transposed lowering, the forward pass of the convolution with
//              the weights turned around over diff_dst (im2col packed straight
//              into the GEMM's panels, C is diff_src itself, f16/bf16 rounded
//              once by the GEMM's store): no col2im, no image-sized scratch;
//   otherwise: GEMM then col2im, col (taps x pixels) = weights^T * diff_dst on
//              bands of output rows, col2im adding each band into an f32 image
//              of the group, rounded once into diff_src. The transposed
//              lowering of a strided convolution would multiply by the zeros
//              of diff_dst dilated by the stride (4x the work at stride 2).
// Measured on Zen 4 (README, "Convolution and pooling speed"): the transposed
// lowering ran the stride-1 ResNet-50 layers XXX.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "backends/cpu_avx512/conv2d_lowering.hpp"
#include "backends/cpu_avx512/cpu_ops.hpp"
#include "backends/cpu_avx512/float_storage.hpp"
#include "backends/cpu_avx512/gemm_driver.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

template <class Storage>
const char *backward_data(const core::Conv2dArgs &a, core::CpuIsa isa, int threads, Scratch &scratch) {
  using T = typename Storage::type;
  const ConvShape s(a);
  const dlk_dtype dtype = a.desc.src_type;
  const int64_t image_size = s.cg * s.h * s.w;
  const Bands bands = plan_bands(s, s.taps() * sizeof(float), image_size * sizeof(float),
                                 s.n * s.groups, threads);
  auto *base =
      static_cast<unsigned char *>(band_scratch(scratch, s, bands, "dlk_conv2d_backward_data"));
  const int64_t rows = bands.rows;
  const ThreadSplit split = bands.split;
  const char *kernel = "";

  parallel_for(s.n * s.groups, split.outer, [&](int64_t item, int thread) {
    const int64_t image = item / s.groups, g = item % s.groups;
    ScratchCarver carve(base + bands.bytes_per_band * thread);
    float *col = carve.carve<float>(rows * s.ow * s.taps());
    float *sum = carve.carve<float>(image_size);
    std::fill(sum, sum + image_size, 0.0f);
    const T *weights = static_cast<const T *>(a.weights) + g * s.kg * s.taps();
    const T *diff_dst = static_cast<const T *>(a.diff_dst) + s.dst_offset(image, g);
    for (int64_t oy0 = 0; oy0 < s.oh; oy0 += rows) {
      const int64_t oy1 = std::min(s.oh, oy0 + rows), pixels = (oy1 - oy0) * s.ow;
      const ColLayout cl = col_layout(s, pixels);
      const char *name = gemm_strided(single_gemm(s.taps(), pixels, s.kg, {weights, dtype, 1, s.taps(), 0},
                               {diff_dst + oy0 * s.ow * s.dst_pixel_stride(), dtype,
                                s.dst_channel_stride(), s.dst_pixel_stride(), 0},
                               col, DLK_DTYPE_F32, cl.tap_stride, cl.pixel_stride),
                   isa, split.inner);
      if (thread == 0) kernel = name;
      col2im_add(s, col, oy0, oy1, sum, split.inner);
    }
    T *diff_src = static_cast<T *>(a.diff_src) + s.src_offset(image, g);
    const int64_t cst = s.src_channel_stride(), pst = s.src_pixel_stride();
    const int64_t sum_cst = s.group_channel_stride(), sum_pst = s.group_pixel_stride();
    parallel_for(s.cg, split.inner, [&](int64_t ci, int) {
      for (int64_t pixel = 0; pixel < s.h * s.w; ++pixel)
        diff_src[ci * cst + pixel * pst] = Storage::store(sum[ci * sum_cst + pixel * sum_pst]);
    });
  });
  return kernel;
}

// The stride-1 backward-data pass is the forward pass of another convolution:
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
  const bool stride1 = args.desc.stride_h == 1 && args.desc.stride_w == 1;
  const char *force = std::getenv("DLK_CONV_BWD_DATA");
  if (stride1 && !(force && std::string(force) == "col2im")) {
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
