// Convolution forward by GEMM, for every layout and dtype.
//
// Float types: dst (kg x pixels) = weights (kg x taps) * im2col (taps x pixels),
// one GEMM per group over all images (its batch), with B written straight into
// the GEMM's packed panels by Im2colPanelPacker; a 1x1, stride-1, unpadded
// convolution needs no im2col at all (B is src itself, a strided view). C is dst
// itself, except f16/bf16 with bias or ReLU, which go through an f32 band so
// they round once; bias and ReLU follow the GEMM in one pass over its output.
//
// int8: the integer GEMM takes the zero point on its A operand, so the product is
// turned around, acc (pixels x kg) = col^T * weights^T, on bands of an im2col
// matrix whose padding taps hold src_zero_point so that they add nothing.
#include <algorithm>
#include <string>

#include "backends/cpu_avx512/conv2d_im2col_packer.hpp"
#include "backends/cpu_avx512/conv2d_lowering.hpp"
#include "backends/cpu_avx512/cpu_ops.hpp"
#include "backends/cpu_avx512/float_storage.hpp"
#include "backends/cpu_avx512/gemm_driver.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

float relu(float v) { return v < 0.0f ? 0.0f : v; }  // NaN passes through

// Writes a band of `pixels` output pixels of group g to dst (which points at the
// band's first pixel of the group's first channel). The accumulator holds output
// channel kk of pixel p at acc[kk * acc_cs + p * acc_ps]; finish(value, channel)
// gives the value dst stores.
template <class Out, class Acc, class Finish>
void store_band(const ConvShape &s, int64_t g, Out *dst, const Acc *acc, int64_t acc_cs,
                int64_t acc_ps, int64_t pixels, int threads, Finish finish) {
  const int64_t dcs = s.dst_channel_stride(), dps = s.dst_pixel_stride();
  parallel_for(s.kg, threads, [&](int64_t kk, int) {
    const int64_t channel = g * s.kg + kk;
    for (int64_t p = 0; p < pixels; ++p)
      dst[kk * dcs + p * dps] = finish(acc[kk * acc_cs + p * acc_ps], channel);
  });
}

// Whether B is src itself: every tap is pixel-aligned with its output.
bool is_pointwise(const ConvShape &s) {
  return s.kh == 1 && s.kw == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_h == 0 &&
         s.pad_w == 0;
}

// The GEMM of group g over images [image0, image0 + images) and output pixels
// [pixel0, pixel0 + pixels), B from src; the caller sets C.
core::GemmArgs group_gemm(const core::Conv2dArgs &a, const ConvShape &s, int64_t g,
                          int64_t image0, int64_t images, int64_t pixel0, int64_t pixels) {
  const dlk_dtype dtype = a.desc.src_type;
  const size_t elem = dlk_dtype_size(dtype);
  const auto *weights = static_cast<const unsigned char *>(a.weights) + g * s.kg * s.taps() * elem;
  core::MatrixView b;
  if (is_pointwise(s))
    b = {static_cast<const unsigned char *>(a.src) +
             (s.src_offset(image0, g) + pixel0 * s.src_pixel_stride()) * elem,
         dtype, s.src_channel_stride(), s.src_pixel_stride(), s.c * s.h * s.w};
  core::GemmArgs gemm = single_gemm(s.kg, pixels, s.taps(), {weights, dtype, s.taps(), 1, 0}, b,
                                    nullptr, DLK_DTYPE_F32, 0, 0);
  gemm.batch = images;
  return gemm;
}

const char *run_group_gemm(const core::Conv2dArgs &a, const ConvShape &s, const core::GemmArgs &gemm,
                           int64_t g, int64_t image0, int64_t pixel0, core::CpuIsa isa, int threads) {
  if (is_pointwise(s)) return gemm_strided(gemm, isa, threads);
  const Im2colPanelPacker packer(s, a.src, a.desc.src_type, g, image0, pixel0);
  return gemm_strided(gemm, isa, threads, &packer);
}

// bias and ReLU over dst's channels of group g (f32 dst, in place).
void bias_relu_in_place(const core::Conv2dArgs &a, const ConvShape &s, int64_t g, int threads) {
  const int64_t dcs = s.dst_channel_stride(), dps = s.dst_pixel_stride();
  parallel_for(s.n * s.kg, threads, [&](int64_t item, int) {
    const int64_t image = item / s.kg, kk = item % s.kg, channel = g * s.kg + kk;
    float *out = static_cast<float *>(a.dst) + s.dst_offset(image, g) + kk * dcs;
    const float bias = a.bias ? a.bias[channel] : 0.0f;
    for (int64_t p = 0; p < s.pixels(); ++p) {
      float v = out[p * dps];
      if (a.bias) v += bias;
      out[p * dps] = a.desc.relu ? relu(v) : v;
    }
  });
}

template <class Storage>
const char *forward_float(const core::Conv2dArgs &a, core::CpuIsa isa, int threads,
                          Scratch &scratch) {
  using T = typename Storage::type;
  const ConvShape s(a);
  const dlk_dtype dtype = a.desc.src_type;
  const bool epilogue = a.bias || a.desc.relu;
  const char *kernel = "";
  if (dtype == DLK_DTYPE_F32 || !epilogue) {
    // C is dst: all images of a group in one GEMM.
    for (int64_t g = 0; g < s.groups; ++g) {
      core::GemmArgs gemm = group_gemm(a, s, g, 0, s.n, 0, s.pixels());
      gemm.c = static_cast<T *>(a.dst) + s.dst_offset(0, g);
      gemm.c_type = dtype;
      gemm.rs_c = s.dst_channel_stride(), gemm.cs_c = s.dst_pixel_stride();
      gemm.batch_stride_c = s.k * s.pixels();
      kernel = run_group_gemm(a, s, gemm, g, 0, 0, isa, threads);
      if (epilogue) bias_relu_in_place(a, s, g, threads);
    }
    return kernel;
  }
  // f16/bf16 with bias or ReLU: bands of pixels in f32, finished into dst.
  const int64_t band = std::clamp<int64_t>(
      static_cast<int64_t>(kScratchBound / 4 / sizeof(float)) / s.kg, 1, s.pixels());
  float *acc = static_cast<float *>(scratch.get(static_cast<size_t>(band * s.kg) * sizeof(float),
                                                "dlk_conv2d_forward", "an f32 band of dst"));
  for (int64_t image = 0; image < s.n; ++image)
    for (int64_t g = 0; g < s.groups; ++g)
      for (int64_t p0 = 0; p0 < s.pixels(); p0 += band) {
        const int64_t pixels = std::min(band, s.pixels() - p0);
        core::GemmArgs gemm = group_gemm(a, s, g, image, 1, p0, pixels);
        gemm.c = acc, gemm.rs_c = pixels, gemm.cs_c = 1;
        kernel = run_group_gemm(a, s, gemm, g, image, p0, isa, threads);
        store_band(s, g, static_cast<T *>(a.dst) + s.dst_offset(image, g) + p0 * s.dst_pixel_stride(),
                   acc, pixels, 1, pixels, threads, [&](float v, int64_t channel) {
                     if (a.bias) v += a.bias[channel];
                     return Storage::store(a.desc.relu ? relu(v) : v);
                   });
      }
  return kernel;
}

// dst = requantize(relu((float)acc * scale_k + bias_k)) in dst's type, as dlk.h
// defines the int8 convolution (s32 dst: acc itself, through ReLU when asked).
void store_int8_band(const core::Conv2dArgs &a, const ConvShape &s, int64_t g, int64_t offset,
                     const int32_t *acc, int64_t pixels, int threads) {
  const auto scaled = [&](int32_t v, int64_t channel) {
    float f = static_cast<float>(v) * a.multiplier_of(channel);
    if (a.bias) f += a.bias[channel];
    return a.desc.relu ? relu(f) : f;
  };
  const int32_t zp = a.desc.dst_zero_point;
  const auto band = [&](auto *dst, auto finish) {
    store_band(s, g, dst + offset, acc, 1, s.kg, pixels, threads, finish);
  };
  switch (a.desc.dst_type) {
    case DLK_DTYPE_S32:
      return band(static_cast<int32_t *>(a.dst), [&](int32_t v, int64_t) {
        return a.desc.relu && v < 0 ? 0 : v;
      });
    case DLK_DTYPE_F32:
      return band(static_cast<float *>(a.dst), scaled);
    case DLK_DTYPE_S8:
      return band(static_cast<int8_t *>(a.dst), [&](int32_t v, int64_t channel) {
        return core::saturate_s8(scaled(v, channel), zp);
      });
    default:
      return band(static_cast<uint8_t *>(a.dst), [&](int32_t v, int64_t channel) {
        return core::saturate_u8(scaled(v, channel), zp);
      });
  }
}

template <class T>  // int8_t or uint8_t
const char *forward_int8(const core::Conv2dArgs &a, core::CpuIsa isa, int threads,
                         Scratch &scratch) {
  const ConvShape s(a);
  const T pad = static_cast<T>(a.desc.src_zero_point);
  const Bands bands = plan_bands(s, s.taps() * sizeof(T) + s.kg * sizeof(int32_t), 0,
                                 s.n * s.groups, threads);
  auto *base = static_cast<unsigned char *>(band_scratch(scratch, s, bands, "dlk_conv2d_forward"));
  const int64_t rows = bands.rows;
  const ThreadSplit split = bands.split;
  const char *kernel = "";

  parallel_for(s.n * s.groups, split.outer, [&](int64_t item, int thread) {
    const int64_t image = item / s.groups, g = item % s.groups;
    ScratchCarver carve(base + bands.bytes_per_band * thread);
    T *col = carve.carve<T>(rows * s.ow * s.taps());
    int32_t *acc = carve.carve<int32_t>(rows * s.ow * s.kg);
    const T *src = static_cast<const T *>(a.src) + s.src_offset(image, g);
    const int8_t *weights = static_cast<const int8_t *>(a.weights) + g * s.kg * s.taps();
    for (int64_t oy0 = 0; oy0 < s.oh; oy0 += rows) {
      const int64_t oy1 = std::min(s.oh, oy0 + rows), pixels = (oy1 - oy0) * s.ow;
      const ColLayout cl = col_layout(s, pixels);
      im2col(s, src, pad, oy0, oy1, col, split.inner);
      core::GemmArgs product = single_gemm(
          pixels, s.kg, s.taps(), {col, a.desc.src_type, cl.pixel_stride, cl.tap_stride, 0},
          {weights, DLK_DTYPE_S8, 1, s.taps(), 0}, acc, DLK_DTYPE_S32, s.kg, 1);
      product.a_zero_point = a.desc.src_zero_point;
      const char *name = gemm_strided(product, isa, split.inner);
      if (thread == 0) kernel = name;
      store_int8_band(a, s, g, s.dst_offset(image, g) + oy0 * s.ow * s.dst_pixel_stride(), acc,
                      pixels, split.inner);
    }
  });
  return kernel;
}

}  // namespace

core::OpResult conv2d_forward_im2col(const core::Conv2dArgs &args, core::CpuIsa isa, int threads,
                                     Scratch &scratch) {
  const char *kernel;
  switch (args.desc.src_type) {
    case DLK_DTYPE_U8: kernel = forward_int8<uint8_t>(args, isa, threads, scratch); break;
    case DLK_DTYPE_S8: kernel = forward_int8<int8_t>(args, isa, threads, scratch); break;
    default:
      kernel = with_float_storage(args.desc.src_type, [&](auto storage) {
        return forward_float<decltype(storage)>(args, isa, threads, scratch);
      });
  }
  const bool int8 = args.desc.src_type == DLK_DTYPE_U8 || args.desc.src_type == DLK_DTYPE_S8;
  const ConvShape s(args);
  const char *lowering = int8 ? "im2col_bands+" : is_pointwise(s) ? "gemm:" : "im2col_packed+";
  return {std::string(lowering) + kernel, 0};
}

}  // namespace dlk::cpu
