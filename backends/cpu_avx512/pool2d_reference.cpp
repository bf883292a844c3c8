// Pooling, forward and backward, every layout and dtype. Each task owns one (n, c)
// plane, so no two tasks write the same element; a plane is strided by c in NHWC.
// Windows are clipped to the image: padding never takes part in a max, and
// average pooling divides by kh * kw or by the taps inside the image.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/cpu_avx512/cpu_ops.hpp"
#include "backends/cpu_avx512/float_storage.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

struct PoolShape {
  explicit PoolShape(const core::Pool2dArgs &a)
      : d(a.desc), oh(a.oh), ow(a.ow), nhwc(a.desc.format == DLK_FORMAT_NHWC) {}

  const dlk_pool2d_desc &d;
  int64_t oh, ow;
  bool nhwc;

  int64_t planes() const { return d.n * d.c; }
  // Offsets of plane (image, channel) = plane index image * c + channel.
  int64_t src_plane(int64_t plane) const {
    return nhwc ? plane / d.c * d.h * d.w * d.c + plane % d.c : plane * d.h * d.w;
  }
  int64_t dst_plane(int64_t plane) const {
    return nhwc ? plane / d.c * oh * ow * d.c + plane % d.c : plane * oh * ow;
  }
  int64_t pixel_stride() const { return nhwc ? d.c : 1; }
};

// The window of output (oy, ox) clipped to the image: rows [y0, y1), columns [x0, x1).
struct Window {
  int64_t y0, y1, x0, x1;
  int64_t taps() const { return (y1 - y0) * (x1 - x0); }
};

Window window(const dlk_pool2d_desc &d, int64_t oy, int64_t ox) {
  const int64_t y = oy * d.stride_h - d.pad_h, x = ox * d.stride_w - d.pad_w;
  return {std::max<int64_t>(y, 0), std::min(y + d.kh, d.h), std::max<int64_t>(x, 0),
          std::min(x + d.kw, d.w)};
}

int64_t divisor(const dlk_pool2d_desc &d, const Window &win) {
  return d.kind == DLK_POOL_AVG_INCLUDE_PADDING ? d.kh * d.kw : win.taps();
}

// Max pooling; key(element) is what is compared (f32 for float types). The
// first maximum in row-major window order wins ties; argmax may be NULL.
template <class T, class Key>
void max_forward(const core::Pool2dArgs &a, const PoolShape &s, int threads, Key key) {
  const int64_t ps = s.pixel_stride();
  parallel_for(s.planes(), threads, [&](int64_t plane, int) {
    const T *src = static_cast<const T *>(a.src) + s.src_plane(plane);
    T *dst = static_cast<T *>(a.dst) + s.dst_plane(plane);
    int32_t *argmax = a.argmax ? a.argmax + s.dst_plane(plane) : nullptr;
    for (int64_t oy = 0; oy < s.oh; ++oy) {
      for (int64_t ox = 0; ox < s.ow; ++ox) {
        const Window win = window(s.d, oy, ox);
        int64_t best = win.y0 * s.d.w + win.x0;
        auto best_key = key(src[best * ps]);
        for (int64_t y = win.y0; y < win.y1; ++y) {
          for (int64_t x = win.x0; x < win.x1; ++x) {
            const auto k = key(src[(y * s.d.w + x) * ps]);
            if (k > best_key) best_key = k, best = y * s.d.w + x;
          }
        }
        const int64_t out = (oy * s.ow + ox) * ps;
        dst[out] = src[best * ps];
        if (argmax) argmax[out] = static_cast<int32_t>(best);
      }
    }
  });
}

// Average pooling: sum(window) as Sum, then finish(sum, divisor) gives the element.
template <class T, class Sum, class Finish>
void average_forward(const core::Pool2dArgs &a, const PoolShape &s, int threads, Finish finish) {
  const int64_t ps = s.pixel_stride();
  parallel_for(s.planes(), threads, [&](int64_t plane, int) {
    const T *src = static_cast<const T *>(a.src) + s.src_plane(plane);
    T *dst = static_cast<T *>(a.dst) + s.dst_plane(plane);
    for (int64_t oy = 0; oy < s.oh; ++oy) {
      for (int64_t ox = 0; ox < s.ow; ++ox) {
        const Window win = window(s.d, oy, ox);
        Sum sum{0};
        for (int64_t y = win.y0; y < win.y1; ++y)
          for (int64_t x = win.x0; x < win.x1; ++x) sum += finish.load(src[(y * s.d.w + x) * ps]);
        dst[(oy * s.ow + ox) * ps] = finish(sum, divisor(s.d, win));
      }
    }
  });
}

template <class Storage>
struct FloatAverage {
  float load(typename Storage::type v) const { return Storage::load(v); }
  typename Storage::type operator()(float sum, int64_t count) const {
    return Storage::store(sum / static_cast<float>(count));
  }
};

// int8: exact int32 sum; the f32 quotient rounds half to even, then saturates.
template <class T>
struct Int8Average {
  int32_t load(T v) const { return v; }
  T operator()(int32_t sum, int64_t count) const {
    const float mean = static_cast<float>(sum) / static_cast<float>(count);
    return static_cast<T>(std::is_signed<T>::value ? core::saturate_s8(mean, 0)
                                                   : core::saturate_u8(mean, 0));
  }
};

// Backward scatters into diff_src at each argmax, so every index must lie in its
// (n, c) plane; checked before anything is written, so a bad argmax changes nothing.
void check_argmax(const core::Pool2dArgs &a, const PoolShape &s) {
  const int64_t ps = s.pixel_stride(), plane_size = s.d.h * s.d.w;
  for (int64_t plane = 0; plane < s.planes(); ++plane) {
    const int32_t *argmax = a.argmax_in + s.dst_plane(plane);
    for (int64_t out = 0; out < s.oh * s.ow; ++out) {
      const int32_t index = argmax[out * ps];
      if (index >= 0 && index < plane_size) continue;
      core::throw_invalid("dlk_pool2d_backward", "argmax",
                          "holds " + std::to_string(index) + " for output " + std::to_string(out) +
                              " of plane " + std::to_string(plane) + "; must be y * w + x, in [0, " +
                              std::to_string(plane_size) + ")");
    }
  }
}

// Sums each plane's gradient in f32 and rounds once into diff_src.
template <class Storage>
void backward(const core::Pool2dArgs &a, const PoolShape &s, int threads) {
  using T = typename Storage::type;
  const int64_t ps = s.pixel_stride(), plane_size = s.d.h * s.d.w;
  const int team = team_size(s.planes(), threads);
  std::vector<float> sums(static_cast<size_t>(plane_size * team));
  parallel_for(s.planes(), team, [&](int64_t plane, int thread) {
    float *sum = sums.data() + plane_size * thread;
    std::fill(sum, sum + plane_size, 0.0f);
    const T *diff_dst = static_cast<const T *>(a.diff_dst) + s.dst_plane(plane);
    for (int64_t oy = 0; oy < s.oh; ++oy) {
      for (int64_t ox = 0; ox < s.ow; ++ox) {
        const int64_t out = (oy * s.ow + ox) * ps;
        const float g = Storage::load(diff_dst[out]);
        if (s.d.kind == DLK_POOL_MAX) {
          sum[a.argmax_in[s.dst_plane(plane) + out]] += g;
          continue;
        }
        const Window win = window(s.d, oy, ox);
        const float share = g / static_cast<float>(divisor(s.d, win));
        for (int64_t y = win.y0; y < win.y1; ++y)
          for (int64_t x = win.x0; x < win.x1; ++x) sum[y * s.d.w + x] += share;
      }
    }
    T *diff_src = static_cast<T *>(a.diff_src) + s.src_plane(plane);
    for (int64_t i = 0; i < plane_size; ++i) diff_src[i * ps] = Storage::store(sum[i]);
  });
}

const char *implementation_name(dlk_pool_kind kind) {
  return kind == DLK_POOL_MAX ? "ref:pool_max" : "ref:pool_avg";
}

}  // namespace

core::OpResult pool2d_forward_reference(const core::Pool2dArgs &args, int threads) {
  const PoolShape s(args);
  const bool max = args.desc.kind == DLK_POOL_MAX;
  switch (args.desc.dtype) {
    case DLK_DTYPE_S8:
      if (max) max_forward<int8_t>(args, s, threads, [](int8_t v) { return v; });
      else average_forward<int8_t, int32_t>(args, s, threads, Int8Average<int8_t>{});
      break;
    case DLK_DTYPE_U8:
      if (max) max_forward<uint8_t>(args, s, threads, [](uint8_t v) { return v; });
      else average_forward<uint8_t, int32_t>(args, s, threads, Int8Average<uint8_t>{});
      break;
    default:
      with_float_storage(args.desc.dtype, [&](auto storage) {
        using Storage = decltype(storage);
        using T = typename Storage::type;
        if (max) max_forward<T>(args, s, threads, [](T v) { return Storage::load(v); });
        else average_forward<T, float>(args, s, threads, FloatAverage<Storage>{});
      });
  }
  return {implementation_name(args.desc.kind), 0};
}

core::OpResult pool2d_backward_reference(const core::Pool2dArgs &args, int threads) {
  const PoolShape s(args);
  if (args.desc.kind == DLK_POOL_MAX) check_argmax(args, s);
  with_float_storage(args.desc.dtype, [&](auto storage) {
    backward<decltype(storage)>(args, s, threads);
  });
  return {implementation_name(args.desc.kind), 0};
}

}  // namespace dlk::cpu
