#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "backends/cuda/conv_kernels.hpp"
#include "backends/cuda/elementwise.cuh"

namespace dlk::cuda {
namespace {

constexpr int kThreads = kElementwiseThreads;


// The output channel of element e of dst.
struct ChannelOf {
  int64_t k, pixels;  // pixels = oh * ow
  bool nhwc;
  __device__ int64_t operator()(int64_t e) const { return nhwc ? e % k : (e / pixels) % k; }
};

template <class Storage>
__global__ void bias_relu(typename Storage::type *dst, const float *product, int64_t total, ChannelOf channel,
                          const float *bias, bool relu) {
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total;
       e += int64_t{gridDim.x} * blockDim.x) {
    float v = product ? product[e] : Storage::load(dst[e]);
    if (bias) v = __fadd_rn(v, bias[channel(e)]);
    if (relu && v < 0.0f) v = 0.0f;
    dst[e] = Storage::store(v);
  }
}

// One block per output channel: each thread sums a strided share, then a tree
// reduction in shared memory.
template <class Storage>
__global__ void diff_bias(const typename Storage::type *diff_dst, int64_t n, int64_t k, int64_t pixels, bool nhwc,
                          float *out) {
  __shared__ float partial[kThreads];
  const int64_t channel = blockIdx.x, per_channel = n * pixels;
  float sum = 0.0f;
  for (int64_t i = threadIdx.x; i < per_channel; i += blockDim.x) {
    const int64_t image = i / pixels, pixel = i % pixels;
    const int64_t at = nhwc ? (image * pixels + pixel) * k + channel : (image * k + channel) * pixels + pixel;
    sum += Storage::load(diff_dst[at]);
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (int(threadIdx.x) < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[channel] = partial[0];
}

struct Im2colShape {
  int64_t c, h, w, groups, c_per_group, kh, kw, oh, ow, stride_h, stride_w, pad_h, pad_w, dilation_h,
      dilation_w;
  bool nhwc;
};

// One thread per col element; bits are copied, so one kernel per element size.
template <class T>
__global__ void im2col(Im2colShape s, const T *src, T *col) {
  const int64_t pixels = s.oh * s.ow, taps = s.kh * s.kw * s.c_per_group;
  const int64_t total = s.groups * taps * pixels;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total;
       e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t g = e / (taps * pixels), inner = e % (taps * pixels);
    int64_t p, tap;
    if (s.nhwc) p = inner / taps, tap = inner % taps;  // [p][(r * kw + s) * c_g + c]
    else tap = inner / pixels, p = inner % pixels;     // [c_g * kh * kw + r * kw + s][p]
    const int64_t c = s.nhwc ? tap % s.c_per_group : tap / (s.kh * s.kw);
    const int64_t rs = s.nhwc ? tap / s.c_per_group : tap % (s.kh * s.kw);
    const int64_t r = rs / s.kw, q = rs % s.kw;
    const int64_t y = (p / s.ow) * s.stride_h - s.pad_h + r * s.dilation_h;
    const int64_t x = (p % s.ow) * s.stride_w - s.pad_w + q * s.dilation_w;
    const int64_t channel = g * s.c_per_group + c;
    T v{};
    if (y >= 0 && y < s.h && x >= 0 && x < s.w)
      v = s.nhwc ? src[(y * s.w + x) * s.c + channel] : src[(channel * s.h + y) * s.w + x];
    col[e] = v;
  }
}

template <class Body>
cudaError_t with_storage(dlk_dtype dtype, Body body) {
  switch (dtype) {
    case DLK_DTYPE_F16: body(F16Storage{}); break;
    case DLK_DTYPE_BF16: body(BF16Storage{}); break;
    default: body(F32Storage{});
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_im2col(const core::Conv2dArgs &a, int64_t image, void *col, cudaStream_t stream) {
  const dlk_conv2d_desc &d = a.desc;
  const Im2colShape shape{d.c,        d.h,        d.w,       d.groups,     a.c_per_group, d.kh,
                          d.kw,       a.oh,       a.ow,      d.stride_h,   d.stride_w,    d.pad_h,
                          d.pad_w,    d.dilation_h, d.dilation_w, d.format == DLK_FORMAT_NHWC};
  const int64_t total = d.groups * d.kh * d.kw * a.c_per_group * a.oh * a.ow;
  const dim3 grid = elementwise_grid(total);
  const int64_t image_elements = d.c * d.h * d.w;
  if (d.src_type == DLK_DTYPE_F32)
    im2col<float><<<grid, kThreads, 0, stream>>>(shape, static_cast<const float *>(a.src) + image * image_elements,
                                                  static_cast<float *>(col));
  else  // f16, bf16: two bytes moved as they are
    im2col<uint16_t><<<grid, kThreads, 0, stream>>>(
        shape, static_cast<const uint16_t *>(a.src) + image * image_elements, static_cast<uint16_t *>(col));
  return cudaGetLastError();
}

cudaError_t launch_bias_relu(const core::Conv2dArgs &a, const float *product, cudaStream_t stream) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t total = d.n * d.k * a.oh * a.ow;
  const ChannelOf channel{d.k, a.oh * a.ow, d.format == DLK_FORMAT_NHWC};
  const dim3 grid = elementwise_grid(total);
  return with_storage(d.dst_type, [&](auto storage) {
    using Storage = decltype(storage);
    bias_relu<Storage><<<grid, kThreads, 0, stream>>>(static_cast<typename Storage::type *>(a.dst), product,
                                                      total, channel, a.bias, d.relu != 0);
  });
}

cudaError_t launch_diff_bias(const core::Conv2dArgs &a, cudaStream_t stream) {
  const dlk_conv2d_desc &d = a.desc;
  return with_storage(d.dst_type, [&](auto storage) {
    using Storage = decltype(storage);
    diff_bias<Storage><<<static_cast<unsigned>(d.k), kThreads, 0, stream>>>(
        static_cast<const typename Storage::type *>(a.diff_dst), d.n, d.k, a.oh * a.ow,
        d.format == DLK_FORMAT_NHWC, a.diff_bias);
  });
}

}  // namespace dlk::cuda
