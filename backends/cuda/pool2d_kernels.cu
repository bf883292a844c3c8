#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>

#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/elementwise.cuh"
#include "backends/cuda/pool2d_geometry.hpp"
#include "backends/cuda/pool2d_cuda.hpp"
#include "core/numeric.hpp"

namespace dlk::cuda {
namespace {

constexpr int kThreads = kElementwiseThreads;


PoolGeometry geometry(const core::Pool2dArgs &a) {
  const dlk_pool2d_desc &d = a.desc;
  return {d.n,        d.c,        d.h,     d.w,     a.oh,     a.ow, d.kh, d.kw, d.stride_h,
          d.stride_w, d.pad_h,    d.pad_w, d.format == DLK_FORMAT_NHWC, d.kind};
}

template <class T>
struct Int8 {
  using type = T;
  static __device__ int32_t load(T v) { return v; }
};

__device__ bool is_nan(float v) { return isnan(v); }
__device__ bool is_nan(int32_t) { return false; }

// Which output element thread e computes: (plane, oy, ox) with ox fastest.
__device__ void output_of(const PoolGeometry &g, int64_t e, int64_t &plane, int64_t &oy, int64_t &ox) {
  ox = e % g.ow;
  oy = (e / g.ow) % g.oh;
  plane = e / (g.ow * g.oh);
}

template <class Storage>
__global__ void max_forward(PoolGeometry g, const typename Storage::type *src, typename Storage::type *dst,
                            int32_t *argmax) {
  const int64_t ps = g.pixel_stride(), total = g.planes() * g.oh * g.ow;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total;
       e += int64_t{gridDim.x} * blockDim.x) {
    int64_t plane, oy, ox, y0, y1, x0, x1;
    output_of(g, e, plane, oy, ox);
    g.window(oy, ox, y0, y1, x0, x1);
    const typename Storage::type *s = src + g.src_plane(plane);
    int64_t best = y0 * g.w + x0;
    auto best_key = Storage::load(s[best * ps]);
    for (int64_t y = y0; y < y1; ++y)
      for (int64_t x = x0; x < x1; ++x) {
        const auto k = Storage::load(s[(y * g.w + x) * ps]);
        // dlk.h's NaN rule: the first NaN beats every number.
        if (k > best_key || (is_nan(k) && !is_nan(best_key))) best_key = k, best = y * g.w + x;
      }
    const int64_t out = g.dst_plane(plane) + (oy * g.ow + ox) * ps;
    dst[out] = s[best * ps];
    if (argmax) argmax[out] = static_cast<int32_t>(best);
  }
}

template <class Storage>
__global__ void average_forward(PoolGeometry g, const typename Storage::type *src, typename Storage::type *dst) {
  const int64_t ps = g.pixel_stride(), total = g.planes() * g.oh * g.ow;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total;
       e += int64_t{gridDim.x} * blockDim.x) {
    int64_t plane, oy, ox, y0, y1, x0, x1;
    output_of(g, e, plane, oy, ox);
    g.window(oy, ox, y0, y1, x0, x1);
    const typename Storage::type *s = src + g.src_plane(plane);
    float sum = 0.0f;
    for (int64_t y = y0; y < y1; ++y)
      for (int64_t x = x0; x < x1; ++x) sum = __fadd_rn(sum, Storage::load(s[(y * g.w + x) * ps]));
    dst[g.dst_plane(plane) + (oy * g.ow + ox) * ps] =
        Storage::store(__fdiv_rn(sum, static_cast<float>(g.divisor(y0, y1, x0, x1))));
  }
}

template <class T>
__global__ void int8_average_forward(PoolGeometry g, const T *src, T *dst, int32_t lo, int32_t hi) {
  const int64_t ps = g.pixel_stride(), total = g.planes() * g.oh * g.ow;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total;
       e += int64_t{gridDim.x} * blockDim.x) {
    int64_t plane, oy, ox, y0, y1, x0, x1;
    output_of(g, e, plane, oy, ox);
    g.window(oy, ox, y0, y1, x0, x1);
    const T *s = src + g.src_plane(plane);
    int32_t sum = 0;
    for (int64_t y = y0; y < y1; ++y)
      for (int64_t x = x0; x < x1; ++x) sum += s[(y * g.w + x) * ps];
    const float mean = __fdiv_rn(static_cast<float>(sum), static_cast<float>(g.divisor(y0, y1, x0, x1)));
    dst[g.dst_plane(plane) + (oy * g.ow + ox) * ps] = static_cast<T>(core::requantize(mean, 0, lo, hi));
  }
}

// Sets *flag when an argmax lies outside its output's window.
__global__ void check_argmax(PoolGeometry g, const int32_t *argmax, int *flag) {
  const int64_t ps = g.pixel_stride(), total = g.planes() * g.oh * g.ow;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total;
       e += int64_t{gridDim.x} * blockDim.x) {
    int64_t plane, oy, ox, y0, y1, x0, x1;
    output_of(g, e, plane, oy, ox);
    g.window(oy, ox, y0, y1, x0, x1);
    const int32_t index = argmax[g.dst_plane(plane) + (oy * g.ow + ox) * ps];
    const int64_t y = index / g.w, x = index % g.w;
    if (index < 0 || y < y0 || y >= y1 || x < x0 || x >= x1) *flag = 1;
  }
}

template <class Storage>
__global__ void backward(PoolGeometry g, const typename Storage::type *diff_dst, const int32_t *argmax,
                         typename Storage::type *diff_src) {
  const int64_t ps = g.pixel_stride(), total = g.planes() * g.h * g.w;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total;
       e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t x = e % g.w, y = (e / g.w) % g.h, plane = e / (g.w * g.h);
    int64_t oy0, oy1, ox0, ox1;
    covering_outputs(y, g.pad_h, g.kh, g.stride_h, g.oh, oy0, oy1);
    covering_outputs(x, g.pad_w, g.kw, g.stride_w, g.ow, ox0, ox1);
    const int64_t index = y * g.w + x, dst_plane = g.dst_plane(plane);
    float sum = 0.0f;
    for (int64_t oy = oy0; oy <= oy1; ++oy)
      for (int64_t ox = ox0; ox <= ox1; ++ox) {
        const int64_t out = dst_plane + (oy * g.ow + ox) * ps;
        const float grad = Storage::load(diff_dst[out]);
        if (g.kind == DLK_POOL_MAX) {
          if (argmax[out] == index) sum = __fadd_rn(sum, grad);
        } else {
          int64_t y0, y1, x0, x1;
          g.window(oy, ox, y0, y1, x0, x1);
          sum = __fadd_rn(sum, __fdiv_rn(grad, static_cast<float>(g.divisor(y0, y1, x0, x1))));
        }
      }
    diff_src[g.src_plane(plane) + index * ps] = Storage::store(sum);
  }
}

template <class Storage>
void launch_float_forward(const PoolGeometry &g, const core::Pool2dArgs &a, cudaStream_t stream) {
  using T = typename Storage::type;
  const dim3 grid = elementwise_grid(g.n * g.c * g.oh * g.ow);
  if (g.kind == DLK_POOL_MAX)
    max_forward<Storage><<<grid, kThreads, 0, stream>>>(g, static_cast<const T *>(a.src), static_cast<T *>(a.dst),
                                                        a.argmax);
  else
    average_forward<Storage><<<grid, kThreads, 0, stream>>>(g, static_cast<const T *>(a.src),
                                                            static_cast<T *>(a.dst));
}

template <class T>
void launch_int8_forward(const PoolGeometry &g, const core::Pool2dArgs &a, int32_t lo, int32_t hi,
                         cudaStream_t stream) {
  const dim3 grid = elementwise_grid(g.n * g.c * g.oh * g.ow);
  if (g.kind == DLK_POOL_MAX)
    max_forward<Int8<T>><<<grid, kThreads, 0, stream>>>(g, static_cast<const T *>(a.src), static_cast<T *>(a.dst),
                                                        a.argmax);
  else
    int8_average_forward<T><<<grid, kThreads, 0, stream>>>(g, static_cast<const T *>(a.src),
                                                           static_cast<T *>(a.dst), lo, hi);
}

template <class Storage>
void launch_backward(const PoolGeometry &g, const core::Pool2dArgs &a, cudaStream_t stream) {
  using T = typename Storage::type;
  backward<Storage><<<elementwise_grid(g.n * g.c * g.h * g.w), kThreads, 0, stream>>>(
      g, static_cast<const T *>(a.diff_dst), a.argmax_in, static_cast<T *>(a.diff_src));
}

}  // namespace

void pool2d_forward_cuda(const core::Pool2dArgs &a, cudaStream_t stream) {
  const PoolGeometry g = geometry(a);
  if (g.n * g.c * g.oh * g.ow == 0) return;
  switch (a.desc.dtype) {
    case DLK_DTYPE_S8: launch_int8_forward<int8_t>(g, a, -128, 127, stream); break;
    case DLK_DTYPE_U8: launch_int8_forward<uint8_t>(g, a, 0, 255, stream); break;
    case DLK_DTYPE_F16: launch_float_forward<F16Storage>(g, a, stream); break;
    case DLK_DTYPE_BF16: launch_float_forward<BF16Storage>(g, a, stream); break;
    default: launch_float_forward<F32Storage>(g, a, stream);
  }
  check_cuda(cudaGetLastError(), "pool2d forward kernel launch");
}

void pool2d_backward_cuda(const core::Pool2dArgs &a, int *flag, cudaStream_t stream) {
  const PoolGeometry g = geometry(a);
  if (g.n * g.c * g.h * g.w == 0) return;
  if (g.kind == DLK_POOL_MAX && g.oh * g.ow > 0) {
    check_cuda(cudaMemsetAsync(flag, 0, sizeof(int), stream), "cudaMemsetAsync");
    check_argmax<<<elementwise_grid(g.n * g.c * g.oh * g.ow), kThreads, 0, stream>>>(g, a.argmax_in, flag);
    check_cuda(cudaGetLastError(), "pool2d argmax check kernel launch");
    int bad = 0;
    check_cuda(cudaMemcpyAsync(&bad, flag, sizeof(int), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (bad)
      core::throw_invalid("dlk_pool2d_backward", "argmax",
                          "holds an index outside its output's window; it must be what dlk_pool2d_forward wrote "
                          "(y * w + x of the window's maximum)");
  }
  switch (a.desc.dtype) {
    case DLK_DTYPE_F16: launch_backward<F16Storage>(g, a, stream); break;
    case DLK_DTYPE_BF16: launch_backward<BF16Storage>(g, a, stream); break;
    default: launch_backward<F32Storage>(g, a, stream);
  }
  check_cuda(cudaGetLastError(), "pool2d backward kernel launch");
}

}  // namespace dlk::cuda
