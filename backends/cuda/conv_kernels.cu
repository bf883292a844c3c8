#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "backends/cuda/conv_kernels.hpp"

namespace dlk::cuda {
namespace {

constexpr int kThreads = 256;

struct F32 {
  using type = float;
  static __device__ float load(float v) { return v; }
  static __device__ float store(float v) { return v; }
};
struct F16 {
  using type = __half;
  static __device__ float load(__half v) { return __half2float(v); }
  static __device__ __half store(float v) { return __float2half_rn(v); }
};
struct BF16 {
  using type = __nv_bfloat16;
  static __device__ float load(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __nv_bfloat16 store(float v) { return __float2bfloat16_rn(v); }
};

// The output channel of element e of dst.
struct ChannelOf {
  int64_t k, pixels;  // pixels = oh * ow
  bool nhwc;
  __device__ int64_t operator()(int64_t e) const { return nhwc ? e % k : (e / pixels) % k; }
};

template <class Storage>
__global__ void bias_relu(typename Storage::type *dst, int64_t total, ChannelOf channel, const float *bias,
                          bool relu) {
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total;
       e += int64_t{gridDim.x} * blockDim.x) {
    float v = Storage::load(dst[e]);
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

template <class Body>
cudaError_t with_storage(dlk_dtype dtype, Body body) {
  switch (dtype) {
    case DLK_DTYPE_F16: body(F16{}); break;
    case DLK_DTYPE_BF16: body(BF16{}); break;
    default: body(F32{});
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_bias_relu(const core::Conv2dArgs &a, cudaStream_t stream) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t total = d.n * d.k * a.oh * a.ow;
  const ChannelOf channel{d.k, a.oh * a.ow, d.format == DLK_FORMAT_NHWC};
  const int64_t blocks = (total + kThreads - 1) / kThreads;
  const dim3 grid(static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8));
  return with_storage(d.dst_type, [&](auto storage) {
    using Storage = decltype(storage);
    bias_relu<Storage><<<grid, kThreads, 0, stream>>>(static_cast<typename Storage::type *>(a.dst), total,
                                                      channel, a.bias, d.relu != 0);
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
