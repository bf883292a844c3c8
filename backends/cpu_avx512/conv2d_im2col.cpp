// Convolution forward by GEMM, for every layout and dtype.
//
// Float types: dst (kg x pixels) = weights (kg x taps) * im2col (taps x pixels),
// one GEMM per group over all images (its batch), with B written straight into
// the GEMM's packed panels by Im2colPanelPacker; a 1x1, stride-1, unpadded
// convolution needs no im2col at all (B is src itself, a strided view). C is dst
// itself; bias (per row) and ReLU are the GEMM's epilogue, applied in the store
// of each tile (f16/bf16 round once, after them). bf16 runs the tier's bf16
// kernel (vdpbf16ps) where it has one, the packer writing bf16 k-pairs; f16,
// and bf16 elsewhere, are converted to f32 as they are packed.
//
// int8: the integer GEMM takes the zero point on its A operand, so the product is
// turned around, dst (pixels x kg) = col^T * weights^T, on bands of an im2col
// matrix whose padding taps hold src_zero_point so that they add nothing; the
// GEMM's store requantizes with the per-column scale, bias and ReLU.
#include <algorithm>
#include <string>

#include "backends/cpu_avx512/conv2d_im2col_packer.hpp"
#include "backends/cpu_avx512/conv2d_lowering.hpp"
#include "backends/cpu_avx512/cpu_ops.hpp"
#include "backends/cpu_avx512/float_storage.hpp"
#include "backends/cpu_avx512/gemm_driver.hpp"
#include "backends/cpu_avx512/gemm_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

// Whether B is src itself: every tap is pixel-aligned with its output.
bool is_pointwise(const ConvShape &s) {
  return s.kh == 1 && s.kw == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_h == 0 &&
         s.pad_w == 0;
}

template <class Storage>
const char *forward_float(const core::Conv2dArgs &a, core::CpuIsa isa, int threads) {
  using T = typename Storage::type;
  const ConvShape s(a);
  const dlk_dtype dtype = a.desc.src_type;
  const size_t elem = dlk_dtype_size(dtype);
  const char *kernel = "";
  for (int64_t g = 0; g < s.groups; ++g) {
    const auto *weights =
        static_cast<const unsigned char *>(a.weights) + g * s.kg * s.taps() * elem;
    // B's dtype picks the GEMM's kernel (bf16 x bf16 runs the bf16 kernel where the
    // tier has one); through the packer its pointer and strides are not read.
    core::MatrixView b{nullptr, dtype, 0, 0, 0};
    if (is_pointwise(s))
      b = {static_cast<const unsigned char *>(a.src) + s.src_offset(0, g) * elem, dtype,
           s.src_channel_stride(), s.src_pixel_stride(), s.c * s.h * s.w};
    // C is dst (kg x pixels) of all images, bias per row (output channel).
    core::GemmArgs gemm =
        single_gemm(s.kg, s.pixels(), s.taps(), {weights, dtype, s.taps(), 1, 0}, b,
                    static_cast<T *>(a.dst) + s.dst_offset(0, g), dtype, s.dst_channel_stride(),
                    s.dst_pixel_stride());
    gemm.batch = s.n;
    gemm.batch_stride_c = s.k * s.pixels();
    gemm.bias = a.bias ? a.bias + g * s.kg : nullptr;
    gemm.relu = a.desc.relu != 0;
    if (is_pointwise(s)) {
      kernel = gemm_strided(gemm, isa, threads);
    } else {
      const Im2colPanelPacker packer(s, a.src, dtype, g, gemm_kernel_set(isa).pack);
      kernel = gemm_strided(gemm, isa, threads, &packer);
    }
  }
  return kernel;
}

template <class T>  // int8_t or uint8_t
const char *forward_int8(const core::Conv2dArgs &a, core::CpuIsa isa, int threads,
                         Scratch &scratch) {
  const ConvShape s(a);
  const T pad = static_cast<T>(a.desc.src_zero_point);
  const Bands bands = plan_bands(s, s.taps() * sizeof(T), 0, s.n * s.groups, threads);
  auto *base = static_cast<unsigned char *>(band_scratch(scratch, s, bands, "dlk_conv2d_forward"));
  const int64_t rows = bands.rows;
  const ThreadSplit split = bands.split;
  const size_t dst_elem = dlk_dtype_size(a.desc.dst_type);
  const char *kernel = "";

  parallel_for(s.n * s.groups, split.outer, [&](int64_t item, int thread) {
    const int64_t image = item / s.groups, g = item % s.groups;
    ScratchCarver carve(base + bands.bytes_per_band * thread);
    T *col = carve.carve<T>(rows * s.ow * s.taps());
    const T *src = static_cast<const T *>(a.src) + s.src_offset(image, g);
    const int8_t *weights = static_cast<const int8_t *>(a.weights) + g * s.kg * s.taps();
    for (int64_t oy0 = 0; oy0 < s.oh; oy0 += rows) {
      const int64_t oy1 = std::min(s.oh, oy0 + rows), pixels = (oy1 - oy0) * s.ow;
      const ColLayout cl = col_layout(s, pixels);
      im2col(s, src, pad, oy0, oy1, col, split.inner);
      // C is the band of dst (pixels x kg); the GEMM's store requantizes it
      // with the scales, bias and ReLU of its output channels (columns).
      void *dst = static_cast<unsigned char *>(a.dst) +
                  (s.dst_offset(image, g) + oy0 * s.ow * s.dst_pixel_stride()) * dst_elem;
      core::GemmArgs product = single_gemm(
          pixels, s.kg, s.taps(), {col, a.desc.src_type, cl.pixel_stride, cl.tap_stride, 0},
          {weights, DLK_DTYPE_S8, 1, s.taps(), 0}, dst, a.desc.dst_type, s.dst_pixel_stride(),
          s.dst_channel_stride());
      product.a_zero_point = a.desc.src_zero_point;
      product.c_zero_point = a.desc.dst_zero_point;
      product.column_multipliers =
          a.channel_multipliers ? a.channel_multipliers + g * s.kg : nullptr;
      product.multiplier = a.multiplier;
      product.bias = a.bias ? a.bias + g * s.kg : nullptr;
      product.bias_per_row = false;
      product.relu = a.desc.relu != 0;
      const char *name = gemm_strided(product, isa, split.inner);
      if (thread == 0) kernel = name;
    }
  });
  return kernel;
}

}  // namespace

const char *conv2d_forward_float_gemm(const core::Conv2dArgs &args, core::CpuIsa isa,
                                      int threads) {
  return with_float_storage(args.desc.src_type, [&](auto storage) {
    return forward_float<decltype(storage)>(args, isa, threads);
  });
}

core::OpResult conv2d_forward_im2col(const core::Conv2dArgs &args, core::CpuIsa isa, int threads,
                                     Scratch &scratch) {
  const char *kernel;
  switch (args.desc.src_type) {
    case DLK_DTYPE_U8: kernel = forward_int8<uint8_t>(args, isa, threads, scratch); break;
    case DLK_DTYPE_S8: kernel = forward_int8<int8_t>(args, isa, threads, scratch); break;
    default: kernel = conv2d_forward_float_gemm(args, isa, threads);
  }
  const bool int8 = args.desc.src_type == DLK_DTYPE_U8 || args.desc.src_type == DLK_DTYPE_S8;
  const ConvShape s(args);
  const char *lowering = int8 ? "im2col_bands+" : is_pointwise(s) ? "gemm:" : "im2col_packed+";
  return {std::string(lowering) + kernel, 0};
}

}  // namespace dlk::cpu
