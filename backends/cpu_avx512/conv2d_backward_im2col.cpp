// Convolution backward passes through the reference GEMM (float types only):
//   data:    col (taps x pixels) = weights^T * diff_dst, then col2im sums col
//            back into diff_src;
//   weights: diff_weights (kg x taps) = sum over images of diff_dst * col^T,
//            with col the im2col matrix of src.
// Sums stay in f32 scratch until the end, so f16 and bf16 round once.
#include <algorithm>

#include "backends/cpu_avx512/conv2d_lowering.hpp"
#include "backends/cpu_avx512/cpu_ops.hpp"
#include "backends/cpu_avx512/float_storage.hpp"
#include "backends/cpu_avx512/gemm_driver.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

template <class Storage>
void backward_data(const core::Conv2dArgs &a, core::CpuIsa isa, int threads, Scratch &scratch) {
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
      gemm_strided(single_gemm(s.taps(), pixels, s.kg, {weights, dtype, 1, s.taps(), 0},
                               {diff_dst + oy0 * s.ow * s.dst_pixel_stride(), dtype,
                                s.dst_channel_stride(), s.dst_pixel_stride(), 0},
                               col, DLK_DTYPE_F32, cl.tap_stride, cl.pixel_stride),
                   isa, split.inner);
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
}

// diff_bias[k] = the sum of diff_dst over images and pixels, in f32.
template <class Storage>
void bias_gradient(const core::Conv2dArgs &a, const ConvShape &s, int threads) {
  using T = typename Storage::type;
  const T *diff_dst = static_cast<const T *>(a.diff_dst);
  const int64_t dps = s.dst_pixel_stride();
  parallel_for(s.k, threads, [&](int64_t channel, int) {
    float sum = 0.0f;
    for (int64_t image = 0; image < s.n; ++image) {
      const T *plane = diff_dst + s.dst_offset(image, 0) + channel * s.dst_channel_stride();
      for (int64_t p = 0; p < s.pixels(); ++p) sum += Storage::load(plane[p * dps]);
    }
    a.diff_bias[channel] = sum;
  });
}

template <class Storage>
void backward_weights(const core::Conv2dArgs &a, core::CpuIsa isa, int threads,
                      Scratch &scratch) {
  using T = typename Storage::type;
  const ConvShape s(a);
  const dlk_dtype dtype = a.desc.src_type;
  const int64_t grad_size = s.kg * s.taps();
  // Images add into the same gradient, so only groups are independent.
  const Bands bands =
      plan_bands(s, s.taps() * sizeof(T), grad_size * sizeof(float), s.groups, threads);
  auto *base =
      static_cast<unsigned char *>(band_scratch(scratch, s, bands, "dlk_conv2d_backward_weights"));
  const int64_t rows = bands.rows;
  const ThreadSplit split = bands.split;

  parallel_for(s.groups, split.outer, [&](int64_t g, int thread) {
    ScratchCarver carve(base + bands.bytes_per_band * thread);
    T *col = carve.carve<T>(rows * s.ow * s.taps());
    float *grad = carve.carve<float>(grad_size);
    std::fill(grad, grad + grad_size, 0.0f);  // also the answer for an empty batch
    for (int64_t image = 0; image < s.n; ++image) {
      const T *src = static_cast<const T *>(a.src) + s.src_offset(image, g);
      const T *diff_dst = static_cast<const T *>(a.diff_dst) + s.dst_offset(image, g);
      for (int64_t oy0 = 0; oy0 < s.oh; oy0 += rows) {
        const int64_t oy1 = std::min(s.oh, oy0 + rows), pixels = (oy1 - oy0) * s.ow;
        const ColLayout cl = col_layout(s, pixels);
        im2col(s, src, T{0}, oy0, oy1, col, split.inner);
        core::GemmArgs product = single_gemm(
            s.kg, s.taps(), pixels,
            {diff_dst + oy0 * s.ow * s.dst_pixel_stride(), dtype, s.dst_channel_stride(),
             s.dst_pixel_stride(), 0},
            {col, dtype, cl.pixel_stride, cl.tap_stride, 0}, grad, DLK_DTYPE_F32, s.taps(), 1);
        product.beta = 1.0f;
        gemm_strided(product, isa, split.inner);
      }
    }
    // The gradient's (kk, tap) order is the weights' own layout.
    T *diff_weights = static_cast<T *>(a.diff_weights) + g * grad_size;
    std::transform(grad, grad + grad_size, diff_weights, [](float v) { return Storage::store(v); });
  });
  if (a.diff_bias) bias_gradient<Storage>(a, s, threads);
}

}  // namespace

core::OpResult conv2d_backward_data_col2im(const core::Conv2dArgs &args, core::CpuIsa isa,
                                           int threads, Scratch &scratch) {
  with_float_storage(args.desc.src_type, [&](auto storage) {
    backward_data<decltype(storage)>(args, isa, threads, scratch);
  });
  return {"ref:gemm+col2im", 0};
}

core::OpResult conv2d_backward_weights_im2col(const core::Conv2dArgs &args, core::CpuIsa isa,
                                              int threads, Scratch &scratch) {
  with_float_storage(args.desc.src_type, [&](auto storage) {
    backward_weights<decltype(storage)>(args, isa, threads, scratch);
  });
  return {"ref:im2col+gemm", 0};
}

}  // namespace dlk::cpu
