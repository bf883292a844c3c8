#include "backends/cuda/codec_kernels.hpp"

#include <algorithm>
#include <cstring>

#include "compression/kernels/numerics.hpp"

namespace dlk::cuda {
namespace {

using codec::add_x86;
using codec::sub_x86;

// Grid-stride loops everywhere: a grid of at most this many blocks covers any count.
constexpr uint64_t kMaxGrid = uint64_t{1} << 20;

unsigned grid_for(uint64_t items, uint64_t items_per_block) {
  return static_cast<unsigned>(std::min((items + items_per_block - 1) / items_per_block, kMaxGrid));
}

// ---------------------------------------------------------------- header

struct HeaderBytes {
  uint8_t bytes[32];
};

__global__ void write_header_kernel(uint8_t *message, HeaderBytes header) {
  message[threadIdx.x] = header.bytes[threadIdx.x];
}

// ---------------------------------------------------------------- element-wise

// Element-wise kernels: a block of kThreads threads takes kThreads * kPerThread
// consecutive elements, each thread every kThreads-th one (coalesced accesses).
constexpr unsigned kThreads = 256;
constexpr unsigned kPerThread = 8;
constexpr uint64_t kTile = uint64_t{kThreads} * kPerThread;

// The codec block of element i, kept as i moves forward by less than a block
// most of the time: a 64-bit division per step would cost more than the memory.
struct BlockCursor {
  uint64_t block, next;  // next: the first element of the following block
  __device__ BlockCursor(uint64_t i, uint32_t block_size)
      : block(i / block_size), next((i / block_size + 1) * block_size) {}
  // Moves to element i (>= the last one); true when the block changed.
  __device__ bool advance(uint64_t i, uint32_t block_size) {
    if (i < next) return false;
    do {
      ++block;
      next += block_size;
    } while (i >= next);
    return true;
  }
};

__device__ inline void store_or_add(float *output, uint64_t i, float d, bool accumulate) {
  output[i] = accumulate ? add_x86(output[i], d) : d;
}

// The onebit and quantize decoders' loop over a tile: load(block) reads a codec
// block's parameters (again only when the cursor enters the next block),
// value(i, parameters) decodes element i.
template <bool Accumulate, class Load, class Value>
__device__ void decode_blocks(uint64_t count, uint32_t block_size, float *output, Load load, Value value) {
  for (uint64_t base = uint64_t{blockIdx.x} * kTile; base < count; base += uint64_t{gridDim.x} * kTile) {
    uint64_t i = base + threadIdx.x;
    if (i >= count) break;
    BlockCursor cursor(i, block_size);
    auto parameters = load(cursor.block);
    for (unsigned j = 0; j < kPerThread && i < count; ++j, i += kThreads) {
      if (cursor.advance(i, block_size)) parameters = load(cursor.block);
      store_or_add(output, i, value(i, parameters), Accumulate);
    }
  }
}

struct OnebitMeans {
  float positive, negative;
};

template <bool Accumulate>
__global__ void __launch_bounds__(kThreads)
    onebit_decode_kernel(const uint8_t *means, const uint8_t *bits, uint64_t count, uint32_t block_size,
                         float *output) {
  decode_blocks<Accumulate>(
      count, block_size, output,
      [means](uint64_t block) {
        return OnebitMeans{codec::load_le<float>(means + 8 * block), codec::load_le<float>(means + 8 * block + 4)};
      },
      [bits](uint64_t i, const OnebitMeans &m) { return (bits[i / 8] >> (i % 8)) & 1 ? m.negative : m.positive; });
}

template <int Bits, bool Accumulate>
__global__ void __launch_bounds__(kThreads)
    quantize_decode_kernel(const uint8_t *scales, const uint8_t *codes, uint64_t count, uint32_t block_size,
                           float *output) {
  decode_blocks<Accumulate>(
      count, block_size, output, [scales](uint64_t block) { return codec::load_le<float>(scales + 4 * block); },
      [codes](uint64_t i, float scale) {
        int32_t code;
        if (Bits == 8) {
          code = static_cast<int8_t>(codes[i]);
        } else {
          const int32_t nibble = (codes[i / 2] >> (4 * (i & 1))) & 0xF;
          code = (nibble ^ 8) - 8;  // sign-extend 4 bits
        }
        return codec::dequantize(code, scale);
      });
}

__device__ inline uint16_t to_half(float v, bool bf16) {
  return bf16 ? codec::bf16_from_float(v) : codec::fp16_from_float(v);
}
__device__ inline float from_half(uint16_t h, bool bf16) {
  return bf16 ? codec::bf16_to_float(h) : codec::fp16_to_float(h);
}

// codes 2-byte aligned (the usual case: a message from dlk_malloc) take u16
// stores and loads; otherwise byte by byte.
template <bool Bf16>
__global__ void __launch_bounds__(kThreads)
    cast_encode_kernel(const float *input, float *residual, uint64_t count, uint8_t *codes) {
  const bool aligned = reinterpret_cast<uintptr_t>(codes) % 2 == 0;
  for (uint64_t base = uint64_t{blockIdx.x} * kTile; base < count; base += uint64_t{gridDim.x} * kTile) {
#pragma unroll
    for (unsigned j = 0; j < kPerThread; ++j) {
      const uint64_t i = base + threadIdx.x + uint64_t{j} * kThreads;
      if (i >= count) break;
      const float v = residual ? add_x86(input[i], residual[i]) : input[i];
      const uint16_t h = to_half(v, Bf16);
      if (aligned)
        reinterpret_cast<uint16_t *>(codes)[i] = h;
      else
        codec::store_le<uint16_t>(codes + 2 * i, h);
      if (residual) residual[i] = sub_x86(v, from_half(h, Bf16));
    }
  }
}

template <bool Bf16, bool Accumulate>
__global__ void __launch_bounds__(kThreads)
    cast_decode_kernel(const uint8_t *codes, uint64_t count, float *output) {
  const bool aligned = reinterpret_cast<uintptr_t>(codes) % 2 == 0;
  for (uint64_t base = uint64_t{blockIdx.x} * kTile; base < count; base += uint64_t{gridDim.x} * kTile) {
#pragma unroll
    for (unsigned j = 0; j < kPerThread; ++j) {
      const uint64_t i = base + threadIdx.x + uint64_t{j} * kThreads;
      if (i >= count) break;
      const uint16_t h = aligned ? reinterpret_cast<const uint16_t *>(codes)[i] : codec::load_le<uint16_t>(codes + 2 * i);
      store_or_add(output, i, from_half(h, Bf16), Accumulate);
    }
  }
}

// ---------------------------------------------------------------- onebit encode

// A block's sums are 16 serial chains (numerics.hpp: lane l adds elements l, l +
// 16, ... in order, from +0), so 16 threads, one per lane, take a codec block; a
// CUDA block holds kOnebitGroups of them. Blocks of up to kStageMax elements keep
// v = input + residual in shared memory for the second pass (sign bits and
// residual), which otherwise reads input and residual again.
constexpr unsigned kLanes = static_cast<unsigned>(codec::kGroup);
constexpr unsigned kOnebitGroups = 4;
constexpr unsigned kOnebitThreads = kLanes * kOnebitGroups;
constexpr uint32_t kOnebitStageMax = 2048;  // 4 x 2048 x 4 bytes = 32 KiB of shared memory

template <bool Staged>
__global__ void __launch_bounds__(kOnebitThreads)
    onebit_encode_kernel(const float *input, float *residual, uint64_t count, uint32_t block_size, uint64_t blocks,
                         uint8_t *means, uint8_t *bits) {
  extern __shared__ float stage[];
  const unsigned lane = threadIdx.x % kLanes, group = threadIdx.x / kLanes;
  const unsigned half = group % 2;  // which half of the warp the group is
  const unsigned mask = 0xFFFFu << (16 * half);
  float *staged = stage + size_t{group} * block_size;
  for (uint64_t block = uint64_t{blockIdx.x} * kOnebitGroups + group; block < blocks;
       block += uint64_t{gridDim.x} * kOnebitGroups) {
    const uint64_t start = block * block_size;
    const auto len = static_cast<uint32_t>(codec::block_length(block_size, count, start));
    const float *x = input + start;
    float *r = residual ? residual + start : nullptr;

    float positive = 0.0f, negative = 0.0f;
    uint32_t negatives = 0;
#pragma unroll 8
    for (uint32_t i = lane; i < len; i += kLanes) {
      const float v = r ? add_x86(x[i], r[i]) : x[i];
      if (Staged) staged[i] = v;
      const bool is_negative = v < 0.0f;
      const float square = codec::mul_x86(v, v);
      positive = add_x86(positive, codec::keep_or_zero(!is_negative, square));
      negative = add_x86(negative, codec::keep_or_zero(is_negative, square));
      negatives += is_negative;
    }
    // reduce_lanes16's order: lane l adds lane l + 8, then + 4, + 2, + 1.
    for (unsigned step = kLanes / 2; step >= 1; step /= 2) {
      positive = add_x86(positive, __shfl_down_sync(mask, positive, step, kLanes));
      negative = add_x86(negative, __shfl_down_sync(mask, negative, step, kLanes));
      negatives += __shfl_down_sync(mask, negatives, step, kLanes);
    }
    float positive_level = 0.0f, negative_level = 0.0f;
    if (lane == 0) {
      // Reads the block's input and residual again when a sum overflowed: before
      // any lane writes the residual, which waits for the shuffle below.
      positive_level = codec::onebit_group_level(positive, len - negatives, x, r, len, false);
      negative_level = codec::onebit_group_level(negative, negatives, x, r, len, true);
      codec::store_le<float>(means + 8 * block, positive_level);
      codec::store_le<float>(means + 8 * block + 4, negative_level);
    }
    positive_level = __shfl_sync(mask, positive_level, 0, kLanes);
    negative_level = __shfl_sync(mask, negative_level, 0, kLanes);

    for (uint32_t base = 0; base < len; base += kLanes) {
      const uint32_t i = base + lane;
      bool is_negative = false;
      if (i < len) {
        const float v = Staged ? staged[i] : (r ? add_x86(x[i], r[i]) : x[i]);
        is_negative = v < 0.0f;
        if (r) r[i] = sub_x86(v, is_negative ? negative_level : positive_level);
      }
      const unsigned word = (__ballot_sync(mask, is_negative) >> (16 * half)) & 0xFFFFu;
      if (lane == 0) {
        uint8_t *out = bits + (start + base) / 8;  // start and base are multiples of 16
        out[0] = static_cast<uint8_t>(word);
        if (len - base > 8) out[1] = static_cast<uint8_t>(word >> 8);
      }
    }
    // The next block's first pass reuses `staged`: every lane has read its part.
    __syncwarp(mask);
  }
}

// ---------------------------------------------------------------- int8, int4 encode

// A warp per codec block: the block's largest magnitude is an integer maximum,
// which any order gives. Blocks of up to kStageMax elements keep v in shared
// memory for the second pass.
constexpr unsigned kQuantizeWarps = 8;
constexpr unsigned kQuantizeThreads = 32 * kQuantizeWarps;
constexpr uint32_t kQuantizeStageMax = 1024;  // 8 x 1024 x 4 bytes = 32 KiB of shared memory

template <int Bits, bool Stochastic, bool Staged>
__global__ void __launch_bounds__(kQuantizeThreads)
    quantize_encode_kernel(const float *input, float *residual, uint64_t count, uint32_t block_size, uint64_t blocks,
                           uint64_t key, uint8_t *scales, uint8_t *codes) {
  constexpr float kMaxCode = codec::quantize_max_code(Bits);
  extern __shared__ float stage[];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float *staged = stage + size_t{warp} * block_size;
  for (uint64_t block = uint64_t{blockIdx.x} * kQuantizeWarps + warp; block < blocks;
       block += uint64_t{gridDim.x} * kQuantizeWarps) {
    const uint64_t start = block * block_size;
    const auto len = static_cast<uint32_t>(codec::block_length(block_size, count, start));
    const float *x = input + start;
    float *r = residual ? residual + start : nullptr;

    uint32_t max_key = 0;
#pragma unroll 4
    for (uint32_t i = lane; i < len; i += 32) {
      const float v = r ? add_x86(x[i], r[i]) : x[i];
      if (Staged) staged[i] = v;
      max_key = max(max_key, codec::magnitude_key(v));
    }
    max_key = __reduce_max_sync(0xFFFFFFFFu, max_key);
    const codec::BlockScale s = codec::block_scale(max_key, kMaxCode);
    if (lane == 0) codec::store_le<float>(scales + 4 * block, s.scale);
    __syncwarp();  // int4 lanes read elements that other lanes staged

    // int8: a lane per element; int4: a lane per pair of elements (one byte).
    constexpr uint32_t kPerLane = Bits == 8 ? 1 : 2;
    const bool stochastic = Stochastic && codec::rounds_stochastically(s.scale);
    for (uint32_t first = lane * kPerLane; first < len; first += 32 * kPerLane) {
      uint32_t byte = 0;
      for (uint32_t e = 0; e < kPerLane && first + e < len; ++e) {
        const uint32_t i = first + e;
        const float v = Staged ? staged[i] : (r ? add_x86(x[i], r[i]) : x[i]);
        const float y = codec::clamp_code(v * s.inverse, kMaxCode);
        const float q = stochastic ? codec::round_stochastic(y, codec::random_word(key, start + i))
                                   : codec::round_nearest_even(y);
        const auto code = static_cast<int32_t>(q);
        byte |= static_cast<uint32_t>(code & (Bits == 8 ? 0xFF : 0xF)) << (4 * e);
        if (r) r[i] = sub_x86(v, codec::dequantize(code, s.scale));
      }
      codes[(start + first) / kPerLane] = static_cast<uint8_t>(byte);  // start is a multiple of 16
    }
    __syncwarp();  // the next block's first pass reuses `staged`
  }
}

template <class Kernel>
cudaError_t launch_staged(Kernel kernel, unsigned grid, unsigned threads, size_t shared_bytes, cudaStream_t stream,
                          const float *input, float *residual, uint64_t count, uint32_t block_size, uint64_t blocks,
                          uint8_t *a, uint8_t *b) {
  kernel<<<grid, threads, shared_bytes, stream>>>(input, residual, count, block_size, blocks, a, b);
  return cudaGetLastError();
}

template <int Bits, bool Stochastic>
cudaError_t launch_quantize(const float *input, float *residual, uint64_t count, uint32_t block_size, uint64_t key,
                            uint8_t *scales, uint8_t *codes, cudaStream_t stream) {
  const uint64_t blocks = (count + block_size - 1) / block_size;
  const unsigned grid = grid_for(blocks, kQuantizeWarps);
  if (block_size <= kQuantizeStageMax) {
    quantize_encode_kernel<Bits, Stochastic, true>
        <<<grid, kQuantizeThreads, size_t{kQuantizeWarps} * block_size * sizeof(float), stream>>>(
            input, residual, count, block_size, blocks, key, scales, codes);
  } else {
    quantize_encode_kernel<Bits, Stochastic, false>
        <<<grid, kQuantizeThreads, 0, stream>>>(input, residual, count, block_size, blocks, key, scales, codes);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_write_header(uint8_t *message, const uint8_t *header, cudaStream_t stream) {
  HeaderBytes h;
  std::memcpy(h.bytes, header, sizeof h.bytes);
  write_header_kernel<<<1, sizeof h.bytes, 0, stream>>>(message, h);
  return cudaGetLastError();
}

cudaError_t launch_onebit_encode(const float *input, float *residual, uint64_t count, uint32_t block_size,
                                 uint8_t *block_means, uint8_t *sign_bits, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  const uint64_t blocks = (count + block_size - 1) / block_size;
  const unsigned grid = grid_for(blocks, kOnebitGroups);
  if (block_size <= kOnebitStageMax)
    return launch_staged(onebit_encode_kernel<true>, grid, kOnebitThreads,
                         size_t{kOnebitGroups} * block_size * sizeof(float), stream, input, residual, count,
                         block_size, blocks, block_means, sign_bits);
  return launch_staged(onebit_encode_kernel<false>, grid, kOnebitThreads, 0, stream, input, residual, count,
                       block_size, blocks, block_means, sign_bits);
}

cudaError_t launch_onebit_decode(const uint8_t *block_means, const uint8_t *sign_bits, uint64_t count,
                                 uint32_t block_size, float *output, bool accumulate, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  const unsigned grid = grid_for(count, kTile);
  if (accumulate)
    onebit_decode_kernel<true><<<grid, kThreads, 0, stream>>>(block_means, sign_bits, count, block_size, output);
  else
    onebit_decode_kernel<false><<<grid, kThreads, 0, stream>>>(block_means, sign_bits, count, block_size, output);
  return cudaGetLastError();
}

cudaError_t launch_quantize_encode(const float *input, float *residual, uint64_t count, uint32_t block_size, int bits,
                                   bool stochastic, uint64_t key, uint8_t *scales, uint8_t *codes,
                                   cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  if (bits == 8)
    return stochastic ? launch_quantize<8, true>(input, residual, count, block_size, key, scales, codes, stream)
                      : launch_quantize<8, false>(input, residual, count, block_size, key, scales, codes, stream);
  return stochastic ? launch_quantize<4, true>(input, residual, count, block_size, key, scales, codes, stream)
                    : launch_quantize<4, false>(input, residual, count, block_size, key, scales, codes, stream);
}

cudaError_t launch_quantize_decode(const uint8_t *scales, const uint8_t *codes, uint64_t count, uint32_t block_size,
                                   int bits, float *output, bool accumulate, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  const unsigned grid = grid_for(count, kTile);
  if (bits == 8) {
    if (accumulate)
      quantize_decode_kernel<8, true><<<grid, kThreads, 0, stream>>>(scales, codes, count, block_size, output);
    else
      quantize_decode_kernel<8, false><<<grid, kThreads, 0, stream>>>(scales, codes, count, block_size, output);
  } else {
    if (accumulate)
      quantize_decode_kernel<4, true><<<grid, kThreads, 0, stream>>>(scales, codes, count, block_size, output);
    else
      quantize_decode_kernel<4, false><<<grid, kThreads, 0, stream>>>(scales, codes, count, block_size, output);
  }
  return cudaGetLastError();
}

cudaError_t launch_cast_encode(const float *input, float *residual, uint64_t count, bool bf16, uint8_t *codes,
                               cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  const unsigned grid = grid_for(count, kTile);
  if (bf16)
    cast_encode_kernel<true><<<grid, kThreads, 0, stream>>>(input, residual, count, codes);
  else
    cast_encode_kernel<false><<<grid, kThreads, 0, stream>>>(input, residual, count, codes);
  return cudaGetLastError();
}

cudaError_t launch_cast_decode(const uint8_t *codes, uint64_t count, bool bf16, float *output, bool accumulate,
                               cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  const unsigned grid = grid_for(count, kTile);
  if (bf16) {
    if (accumulate)
      cast_decode_kernel<true, true><<<grid, kThreads, 0, stream>>>(codes, count, output);
    else
      cast_decode_kernel<true, false><<<grid, kThreads, 0, stream>>>(codes, count, output);
  } else {
    if (accumulate)
      cast_decode_kernel<false, true><<<grid, kThreads, 0, stream>>>(codes, count, output);
    else
      cast_decode_kernel<false, false><<<grid, kThreads, 0, stream>>>(codes, count, output);
  }
  return cudaGetLastError();
}

}  // namespace dlk::cuda
