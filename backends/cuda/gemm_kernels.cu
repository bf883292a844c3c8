// Elementwise kernels: one thread per element, grid-stride loops, the first
// index the fastest in memory where there is a choice. Compiled with --fmad=false
// (backends/cuda/CMakeLists.txt) so that a product and a sum round separately, as
// on the CPU; fused multiply-adds are asked for by name where dlk.h specifies one.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "backends/cuda/gemm_kernels.hpp"
#include "core/numeric.hpp"

namespace dlk::cuda {
namespace {

constexpr int kThreads = 256;

dim3 grid_for(int64_t elements) {
  const int64_t blocks = (elements + kThreads - 1) / kThreads;
  return dim3(static_cast<unsigned>(blocks < 65535 * 8 ? (blocks > 0 ? blocks : 1) : 65535 * 8));
}

__global__ void pack_int8(Int8PackArgs p) {
  const int64_t total = p.batch * p.rows_padded * p.k_padded;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total;
       e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t kk = e % p.k_padded, r = (e / p.k_padded) % p.rows_padded,
                  b = e / (p.k_padded * p.rows_padded);
    int value = 0;
    if (kk < p.k && r < p.rows) {
      const int64_t at = b * p.batch_stride + r * p.stride_r + kk * p.stride_k;
      value = p.is_u8 ? int{static_cast<const uint8_t *>(p.src)[at]} - 128
                      : int{static_cast<const int8_t *>(p.src)[at]};
    }
    p.dst[e] = static_cast<int8_t>(value);
  }
}

__global__ void column_sums(const int8_t *packed, int64_t columns, int64_t k_padded, int32_t *sums) {
  for (int64_t col = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; col < columns;
       col += int64_t{gridDim.x} * blockDim.x) {
    const int8_t *column = packed + col * k_padded;
    uint32_t sum = 0;  // wraps modulo 2^32, as the accumulator does
    for (int64_t kk = 0; kk < k_padded; ++kk) sum += static_cast<uint32_t>(int32_t{column[kk]});
    sums[col] = static_cast<int32_t>(sum);
  }
}

__device__ float scaled(const Int8EpilogueArgs &p, int32_t acc, int64_t j) {
  return __fmul_rn(static_cast<float>(acc), p.multipliers ? p.multipliers[j] : p.multiplier);
}

__device__ void dequantize(const Int8EpilogueArgs &p, float &c, int32_t acc, int64_t j) {
  const float product = scaled(p, acc, j);
  c = p.beta == 0.0f ? product : __fmaf_rn(p.beta, c, product);
}

template <class CType>
__device__ void requantize(const Int8EpilogueArgs &p, CType &c, int32_t acc, int64_t j, int32_t lo,
                           int32_t hi) {
  const float product = scaled(p, acc, j);
  const float v = p.beta == 0.0f
                      ? product
                      : __fmaf_rn(p.beta, static_cast<float>(int32_t{c} - p.c_zero_point), product);
  c = static_cast<CType>(core::requantize(v, p.c_zero_point, lo, hi));
}

__global__ void int8_epilogue(Int8EpilogueArgs p) {
  const int64_t total = p.batch * p.m * p.n;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total;
       e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = e % p.m, j = (e / p.m) % p.n, b = e / (p.m * p.n);
    int32_t acc = p.product ? p.product[(b * p.n + j) * p.product_rows + i] : 0;
    if (p.a_offset != 0) acc = core::wrapping_add(acc, core::wrapping_mul(p.a_offset, p.sums[b * p.n + j]));
    const int64_t at = b * p.batch_stride_c + i * p.rs_c + j * p.cs_c;
    switch (p.kind) {
      case Int8Epilogue::store_s32: static_cast<int32_t *>(p.c)[at] = acc; break;
      case Int8Epilogue::accumulate_s32: {
        int32_t &c = static_cast<int32_t *>(p.c)[at];
        c = core::wrapping_add(c, acc);
        break;
      }
      case Int8Epilogue::dequantize_f32: dequantize(p, static_cast<float *>(p.c)[at], acc, j); break;
      case Int8Epilogue::requantize_s8:
        requantize(p, static_cast<int8_t *>(p.c)[at], acc, j, -128, 127);
        break;
      case Int8Epilogue::requantize_u8:
        requantize(p, static_cast<uint8_t *>(p.c)[at], acc, j, 0, 255);
        break;
    }
  }
}

struct F32Storage {
  using type = float;
  static __device__ float load(float v) { return v; }
  static __device__ float store(float v) { return v; }
};
struct F16Storage {
  using type = __half;
  static __device__ float load(__half v) { return __half2float(v); }
  static __device__ __half store(float v) { return __float2half_rn(v); }
};
struct BF16Storage {
  using type = __nv_bfloat16;
  static __device__ float load(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __nv_bfloat16 store(float v) { return __float2bfloat16_rn(v); }
};

template <class Storage>
__global__ void scale_c(typename Storage::type *c, int64_t m, int64_t n, int64_t batch, int64_t rs_c,
                        int64_t cs_c, int64_t batch_stride_c, float alpha, float beta) {
  const int64_t total = batch * m * n;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total;
       e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = e % m, j = (e / m) % n, b = e / (m * n);
    auto &x = c[b * batch_stride_c + i * rs_c + j * cs_c];
    const float zero_product = alpha * 0.0f;
    x = Storage::store(beta == 0.0f ? zero_product : zero_product + beta * Storage::load(x));
  }
}

}  // namespace

cudaError_t launch_pack_int8(const Int8PackArgs &args, cudaStream_t stream) {
  pack_int8<<<grid_for(args.batch * args.rows_padded * args.k_padded), kThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

cudaError_t launch_column_sums(const int8_t *packed_b, int64_t n, int64_t k_padded, int64_t batch,
                               int32_t *sums, cudaStream_t stream) {
  column_sums<<<grid_for(n * batch), kThreads, 0, stream>>>(packed_b, n * batch, k_padded, sums);
  return cudaGetLastError();
}

cudaError_t launch_int8_epilogue(const Int8EpilogueArgs &args, cudaStream_t stream) {
  int8_epilogue<<<grid_for(args.batch * args.m * args.n), kThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

cudaError_t launch_scale_c(dlk_dtype c_type, void *c, int64_t m, int64_t n, int64_t batch,
                           int64_t rs_c, int64_t cs_c, int64_t batch_stride_c, float alpha,
                           float beta, cudaStream_t stream) {
  const dim3 grid = grid_for(batch * m * n);
  switch (c_type) {
    case DLK_DTYPE_F16:
      scale_c<F16Storage><<<grid, kThreads, 0, stream>>>(static_cast<__half *>(c), m, n, batch, rs_c,
                                                         cs_c, batch_stride_c, alpha, beta);
      break;
    case DLK_DTYPE_BF16:
      scale_c<BF16Storage><<<grid, kThreads, 0, stream>>>(static_cast<__nv_bfloat16 *>(c), m, n, batch,
                                                          rs_c, cs_c, batch_stride_c, alpha, beta);
      break;
    default:
      scale_c<F32Storage><<<grid, kThreads, 0, stream>>>(static_cast<float *>(c), m, n, batch, rs_c,
                                                         cs_c, batch_stride_c, alpha, beta);
  }
  return cudaGetLastError();
}

}  // namespace dlk::cuda
