// The codec kernels: one fixed signature per kernel, one implementation per ISA
// tier (scalar, avx2, avx512), bound in one table per tier (kernel_table.cpp).
// The codecs above them (codec_*.cpp) own the framing and validation; kernels see
// only buffers that have been checked. Every tier must produce bit-identical
// results: the arithmetic they share is defined once, in numerics.hpp.
//
// Payload arrays (`uint8_t *`) hold little-endian values at any alignment; float
// arrays are the caller's, 4-byte aligned.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dlk::codec {

// How a decode kernel writes its output.
enum class Store {
  overwrite,
  // overwrite with non-temporal stores where a vector tier can (full, aligned
  // vectors), for outputs far larger than the caches: a regular store first reads
  // every line it overwrites, which costs a store-bound decode about a fifth of its
  // speed at DRAM sizes. Results are the same bits as overwrite.
  overwrite_streaming,
  accumulate  // output[i] += decoded[i]
};

enum class HalfFormat { fp16, bf16 };

struct QuantizeSpec {
  int bits;         // 8 or 4
  bool stochastic;  // else round to nearest even
  uint64_t key;     // stochastic_key(seed, step, rank)
};

// Blocks of `block_size` elements (a multiple of 16), the last one shorter when
// count is not a multiple. block_means: per block (positive mean, negative mean)
// as two f32; sign_bits: bit i (LSB first) set when v[i] < 0.
using OnebitEncodeFn = void(const float *input, float *residual, size_t count,
                            size_t block_size, uint8_t *block_means, uint8_t *sign_bits);
using OnebitDecodeFn = void(const uint8_t *block_means, const uint8_t *sign_bits, size_t count,
                            size_t block_size, float *output, Store store);

// scales: one f32 per block; codes: s8 per element (bits 8) or two s4 per byte,
// even element in the low nibble (bits 4).
using QuantizeEncodeFn = void(const float *input, float *residual, size_t count,
                              size_t block_size, const QuantizeSpec &spec, uint8_t *scales,
                              uint8_t *codes);
using QuantizeDecodeFn = void(const uint8_t *scales, const uint8_t *codes, size_t count,
                              size_t block_size, int bits, float *output, Store store);

// codes: one u16 per element.
using CastEncodeFn = void(const float *input, float *residual, size_t count, HalfFormat format,
                          uint8_t *codes);
using CastDecodeFn = void(const uint8_t *codes, size_t count, HalfFormat format, float *output,
                          Store store);

// For i in [begin, end): v = input[i] (+ residual[i]); when magnitude_key(v) >=
// threshold, append (i, v) to indices/values and set residual[i] = 0, else set
// residual[i] = v. Returns the pairs appended. Stops before the first element
// (or vector of elements) whose pairs would pass `capacity`, leaving it and all
// after it untouched, and sets *resume to where it stopped (end when it did not).
// magnitude_key is numerics.hpp's; threshold <= 0x7FFFFFFF.
using TopkSelectFn = size_t(const float *input, float *residual, size_t begin, size_t end,
                            uint32_t threshold, uint8_t *indices, uint8_t *values,
                            size_t capacity, size_t *resume);

struct KernelTable {
  const char *isa;
  OnebitEncodeFn *onebit_encode;
  OnebitDecodeFn *onebit_decode;
  QuantizeEncodeFn *quantize_encode;
  QuantizeDecodeFn *quantize_decode;
  CastEncodeFn *cast_encode;
  CastDecodeFn *cast_decode;
  TopkSelectFn *topk_select;
};

enum class Isa { scalar = 0, avx2 = 1, avx512 = 2 };

const KernelTable &kernel_table(Isa isa);

#define DLK_CODEC_DECLARE_TIER(tier)           \
  namespace tier {                             \
  OnebitEncodeFn onebit_encode;                \
  OnebitDecodeFn onebit_decode;                \
  QuantizeEncodeFn quantize_encode;            \
  QuantizeDecodeFn quantize_decode;            \
  CastEncodeFn cast_encode;                    \
  CastDecodeFn cast_decode;                    \
  TopkSelectFn topk_select;                    \
  }

DLK_CODEC_DECLARE_TIER(scalar)
DLK_CODEC_DECLARE_TIER(avx2)
DLK_CODEC_DECLARE_TIER(avx512)

#undef DLK_CODEC_DECLARE_TIER

}  // namespace dlk::codec
