// Convolution forward by im2col + the reference GEMM, for every layout and
// dtype. Float types: dst (kg x pixels) = weights (kg x taps) * col (taps x
// pixels) in f32, then bias, ReLU and one rounding to dst's type. int8: the
// integer GEMM takes the zero point on its A operand, so the product is turned
// around, acc (pixels x kg) = col^T * weights^T, with the padding taps holding
// src_zero_point so that they add nothing.
#include <algorithm>
#include <vector>

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

template <class Storage>
void forward_float(const core::Conv2dArgs &a, core::CpuIsa isa, int threads) {
  using T = typename Storage::type;
  const ConvShape s(a);
  const dlk_dtype dtype = a.desc.src_type;
  const int64_t rows = band_rows(s, sizeof(T), s.kg * sizeof(float));
  const int64_t col_size = rows * s.ow * s.taps(), acc_size = rows * s.ow * s.kg;
  const ThreadSplit split = split_threads(s.n * s.groups, threads);
  std::vector<T> cols(static_cast<size_t>(col_size * split.outer));
  std::vector<float> accs(static_cast<size_t>(acc_size * split.outer));

  parallel_for(s.n * s.groups, split.outer, [&](int64_t item, int thread) {
    const int64_t image = item / s.groups, g = item % s.groups;
    T *col = cols.data() + col_size * thread;
    float *acc = accs.data() + acc_size * thread;
    const T *src = static_cast<const T *>(a.src) + s.src_offset(image, g);
    const T *weights = static_cast<const T *>(a.weights) + g * s.kg * s.taps();
    T *dst = static_cast<T *>(a.dst) + s.dst_offset(image, g);
    for (int64_t oy0 = 0; oy0 < s.oh; oy0 += rows) {
      const int64_t oy1 = std::min(s.oh, oy0 + rows), pixels = (oy1 - oy0) * s.ow;
      const ColLayout cl = col_layout(s, pixels);
      im2col(s, src, T{0}, oy0, oy1, col, split.inner);
      gemm_strided(single_gemm(s.kg, pixels, s.taps(), {weights, dtype, s.taps(), 1, 0},
                               {col, dtype, cl.tap_stride, cl.pixel_stride, 0}, acc,
                               DLK_DTYPE_F32, pixels, 1),
                   isa, split.inner);
      store_band(s, g, dst + oy0 * s.ow * s.dst_pixel_stride(), acc, pixels, 1, pixels,
                 split.inner, [&](float v, int64_t channel) {
                   if (a.bias) v += a.bias[channel];
                   return Storage::store(a.desc.relu ? relu(v) : v);
                 });
    }
  });
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
void forward_int8(const core::Conv2dArgs &a, core::CpuIsa isa, int threads) {
  const ConvShape s(a);
  const T pad = static_cast<T>(a.desc.src_zero_point);
  const int64_t rows = band_rows(s, sizeof(T), s.kg * sizeof(int32_t));
  const int64_t col_size = rows * s.ow * s.taps(), acc_size = rows * s.ow * s.kg;
  const ThreadSplit split = split_threads(s.n * s.groups, threads);
  std::vector<T> cols(static_cast<size_t>(col_size * split.outer));
  std::vector<int32_t> accs(static_cast<size_t>(acc_size * split.outer));

  parallel_for(s.n * s.groups, split.outer, [&](int64_t item, int thread) {
    const int64_t image = item / s.groups, g = item % s.groups;
    T *col = cols.data() + col_size * thread;
    int32_t *acc = accs.data() + acc_size * thread;
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
      gemm_strided(product, isa, split.inner);
      store_int8_band(a, s, g, s.dst_offset(image, g) + oy0 * s.ow * s.dst_pixel_stride(), acc,
                      pixels, split.inner);
    }
  });
}

}  // namespace

core::OpResult conv2d_forward_im2col(const core::Conv2dArgs &args, core::CpuIsa isa,
                                     int threads) {
  switch (args.desc.src_type) {
    case DLK_DTYPE_U8: forward_int8<uint8_t>(args, isa, threads); break;
    case DLK_DTYPE_S8: forward_int8<int8_t>(args, isa, threads); break;
    default:
      with_float_storage(args.desc.src_type, [&](auto storage) {
        forward_float<decltype(storage)>(args, isa, threads);
      });
  }
  return {"ref:im2col+gemm", 0};
}

}  // namespace dlk::cpu
