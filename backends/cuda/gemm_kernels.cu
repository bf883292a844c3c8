// dlk's own kernels around cuBLASLt. Elementwise ones run a thread per element
// in grid-stride loops; the integer route's staging kernels move tiles through
// shared memory (below). Compiled with --fmad=false
// (backends/cuda/CMakeLists.txt) so that a product and a sum round separately, as
// on the CPU; fused multiply-adds are asked for by name where dlk.h specifies one.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "backends/cuda/elementwise.cuh"
#include "backends/cuda/gemm_kernels.hpp"
#include "core/numeric.hpp"

namespace dlk::cuda {
namespace {

constexpr int kThreads = kElementwiseThreads;


// The integer route's staging kernels move tiles through shared memory so that
// both the source and the destination are read and written along their
// contiguous direction: packing a row-major B (rows of the packed operand
// contiguous in the source) and writing a row-major C are transposes.
// Grid-stride loops over (batch, tile row, tile column) keep any size within
// the grid's limits.
dim3 tile_grid(int64_t tiles_x, int64_t tiles_y, int64_t batch) {
  auto clamp = [](int64_t v, int64_t hi) { return static_cast<unsigned>(v < 1 ? 1 : (v < hi ? v : hi)); };
  return dim3(clamp(tiles_x, int64_t{1} << 30), clamp(tiles_y, 65535), clamp(batch, 65535));
}

// Packing: a tile of kPackTile rows x kPackTile K elements. Its bytes are read
// with consecutive threads along r (RowsContiguous) or along K, and written
// K-contiguous four bytes a thread (k_padded is a multiple of 4, the
// destination 256-byte aligned). Rows are 68 bytes apart in shared memory: 17
// words, so that 32 consecutive rows fall into 32 different banks.
constexpr int kPackTile = 64;
constexpr int kPackThreads = 256;
constexpr int kPackRowWords = kPackTile / 4 + 1;

template <bool RowsContiguous>
__global__ void __launch_bounds__(kPackThreads) pack_int8(Int8PackArgs p) {
  __shared__ uint32_t tile[kPackTile * kPackRowWords];
  auto *tile_bytes = reinterpret_cast<int8_t *>(tile);
  const int64_t tiles_r = (p.rows_padded + kPackTile - 1) / kPackTile;
  const int64_t tiles_k = (p.k_padded + kPackTile - 1) / kPackTile;
  for (int64_t b = blockIdx.z; b < p.batch; b += gridDim.z) {
    for (int64_t tr = blockIdx.y; tr < tiles_r; tr += gridDim.y) {
      for (int64_t tk = blockIdx.x; tk < tiles_k; tk += gridDim.x) {
        const int64_t r0 = tr * kPackTile, k0 = tk * kPackTile;
        for (int e = threadIdx.x; e < kPackTile * kPackTile; e += kPackThreads) {
          const int fast = e % kPackTile, slow = e / kPackTile;
          const int r = RowsContiguous ? fast : slow, kk = RowsContiguous ? slow : fast;
          int value = 0;
          if (r0 + r < p.rows && k0 + kk < p.k) {
            const int64_t at = b * p.batch_stride + (r0 + r) * p.stride_r + (k0 + kk) * p.stride_k;
            value = p.is_u8 ? int{static_cast<const uint8_t *>(p.src)[at]} - 128
                            : int{static_cast<const int8_t *>(p.src)[at]};
          }
          tile_bytes[r * kPackRowWords * 4 + kk] = static_cast<int8_t>(value);
        }
        __syncthreads();
        for (int w = threadIdx.x; w < kPackTile * (kPackTile / 4); w += kPackThreads) {
          const int r = w / (kPackTile / 4), word = w % (kPackTile / 4);
          if (r0 + r < p.rows_padded && k0 + 4 * word < p.k_padded)
            reinterpret_cast<uint32_t *>(p.dst + (b * p.rows_padded + r0 + r) * p.k_padded + k0)[word] =
                tile[r * kPackRowWords + word];
        }
        __syncthreads();  // the next tile overwrites `tile`
      }
    }
  }
}

// A warp per column of the packed B, four bytes a lane; the sum wraps modulo
// 2^32 as the accumulator does, so any order of the additions gives its value.
constexpr int kSumWarps = 8;

__global__ void __launch_bounds__(32 * kSumWarps)
    column_sums(const int8_t *packed, int64_t columns, int64_t k_padded, int32_t *sums) {
  const unsigned lane = threadIdx.x % 32;
  for (int64_t col = blockIdx.x * int64_t{kSumWarps} + threadIdx.x / 32; col < columns;
       col += int64_t{gridDim.x} * kSumWarps) {
    const auto *column = reinterpret_cast<const uint32_t *>(packed + col * k_padded);
    uint32_t sum = 0;
    for (int64_t w = lane; w < k_padded / 4; w += 32) {
      const uint32_t word = column[w];
      for (int byte = 0; byte < 4; ++byte)
        sum += static_cast<uint32_t>(int32_t{static_cast<int8_t>(word >> (8 * byte))});
    }
    sum = __reduce_add_sync(0xFFFFFFFFu, sum);
    if (lane == 0) sums[col] = static_cast<int32_t>(sum);
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

// C's element (i, j) of batch b from its accumulator, by the epilogue's kind.
__device__ void store_c(const Int8EpilogueArgs &p, int64_t b, int64_t i, int64_t j, int32_t acc) {
  const int64_t at = b * p.batch_stride_c + i * p.rs_c + j * p.cs_c;
  switch (p.kind) {
    case Int8Epilogue::store_s32: static_cast<int32_t *>(p.c)[at] = acc; break;
    case Int8Epilogue::accumulate_s32: {
      int32_t &c = static_cast<int32_t *>(p.c)[at];
      c = core::wrapping_add(c, acc);
      break;
    }
    case Int8Epilogue::dequantize_f32: dequantize(p, static_cast<float *>(p.c)[at], acc, j); break;
    case Int8Epilogue::requantize_s8: requantize(p, static_cast<int8_t *>(p.c)[at], acc, j, -128, 127); break;
    case Int8Epilogue::requantize_u8: requantize(p, static_cast<uint8_t *>(p.c)[at], acc, j, 0, 255); break;
  }
}

// The epilogue: a kEpilogueTile x kEpilogueTile tile of accumulators, read from
// the column-major product along i, written to C along j where C's rows are
// contiguous (ColumnsContiguous: cs_c == 1), else along i. The tile's rows are
// 33 words apart so that either direction is free of bank conflicts.
constexpr int kEpilogueTile = 32;
constexpr int kEpilogueRows = 8;  // threads (32 x 8): each takes 4 elements of a tile

template <bool ColumnsContiguous>
__global__ void __launch_bounds__(kEpilogueTile * kEpilogueRows) int8_epilogue(Int8EpilogueArgs p) {
  __shared__ int32_t tile[kEpilogueTile][kEpilogueTile + 1];  // [j][i]
  const int64_t tiles_i = (p.m + kEpilogueTile - 1) / kEpilogueTile;
  const int64_t tiles_j = (p.n + kEpilogueTile - 1) / kEpilogueTile;
  for (int64_t b = blockIdx.z; b < p.batch; b += gridDim.z) {
    for (int64_t tj = blockIdx.y; tj < tiles_j; tj += gridDim.y) {
      for (int64_t ti = blockIdx.x; ti < tiles_i; ti += gridDim.x) {
        const int64_t i0 = ti * kEpilogueTile, j0 = tj * kEpilogueTile;
        for (int s = threadIdx.y; s < kEpilogueTile; s += kEpilogueRows) {
          const int64_t i = i0 + threadIdx.x, j = j0 + s;
          if (i < p.m && j < p.n) {
            int32_t acc = p.product ? p.product[(b * p.n + j) * p.product_rows + i] : 0;
            if (p.a_offset != 0)
              acc = core::wrapping_add(acc, core::wrapping_mul(p.a_offset, p.sums[b * p.n + j]));
            tile[s][threadIdx.x] = acc;
          }
        }
        __syncthreads();
        for (int s = threadIdx.y; s < kEpilogueTile; s += kEpilogueRows) {
          const int li = ColumnsContiguous ? s : static_cast<int>(threadIdx.x);
          const int lj = ColumnsContiguous ? static_cast<int>(threadIdx.x) : s;
          if (i0 + li < p.m && j0 + lj < p.n) store_c(p, b, i0 + li, j0 + lj, tile[lj][li]);
        }
        __syncthreads();  // the next tile overwrites `tile`
      }
    }
  }
}


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
  const dim3 grid = tile_grid((args.k_padded + kPackTile - 1) / kPackTile,
                              (args.rows_padded + kPackTile - 1) / kPackTile, args.batch);
  if (args.stride_r == 1 && args.stride_k != 1)
    pack_int8<true><<<grid, kPackThreads, 0, stream>>>(args);
  else
    pack_int8<false><<<grid, kPackThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

cudaError_t launch_column_sums(const int8_t *packed_b, int64_t n, int64_t k_padded, int64_t batch,
                               int32_t *sums, cudaStream_t stream) {
  const int64_t blocks = (n * batch + kSumWarps - 1) / kSumWarps;
  const auto grid = static_cast<unsigned>(blocks < 1 ? 1 : (blocks < (int64_t{1} << 30) ? blocks : int64_t{1} << 30));
  column_sums<<<grid, 32 * kSumWarps, 0, stream>>>(packed_b, n * batch, k_padded, sums);
  return cudaGetLastError();
}

cudaError_t launch_int8_epilogue(const Int8EpilogueArgs &args, cudaStream_t stream) {
  const dim3 grid = tile_grid((args.m + kEpilogueTile - 1) / kEpilogueTile,
                              (args.n + kEpilogueTile - 1) / kEpilogueTile, args.batch);
  const dim3 threads(kEpilogueTile, kEpilogueRows);
  if (args.cs_c == 1 && args.rs_c != 1)
    int8_epilogue<true><<<grid, threads, 0, stream>>>(args);
  else
    int8_epilogue<false><<<grid, threads, 0, stream>>>(args);
  return cudaGetLastError();
}

cudaError_t launch_scale_c(dlk_dtype c_type, void *c, int64_t m, int64_t n, int64_t batch,
                           int64_t rs_c, int64_t cs_c, int64_t batch_stride_c, float alpha,
                           float beta, cudaStream_t stream) {
  const dim3 grid = elementwise_grid(batch * m * n);
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
