// What dlk's elementwise CUDA kernels share: how a float storage type is read
// into and written from f32 (round to nearest even, as the CPU's conversions),
// and the grid of a grid-stride loop over a number of elements.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace dlk::cuda {

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

constexpr int kElementwiseThreads = 256;

// A grid-stride loop covers any count, so the grid is capped well below the
// device's limit; more blocks than that only add scheduling work.
inline dim3 elementwise_grid(int64_t elements) {
  const int64_t blocks = (elements + kElementwiseThreads - 1) / kElementwiseThreads;
  return dim3(static_cast<unsigned>(blocks < 65535 * 8 ? (blocks > 0 ? blocks : 1) : 65535 * 8));
}

}  // namespace dlk::cuda
