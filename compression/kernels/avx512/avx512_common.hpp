// Helpers shared by the avx512 kernels (AVX-512 F, BW, DQ; no VL). Internal
// linkage, see kernels/numerics.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/immintrin.hpp"
#include "compression/kernels/kernel_table.hpp"
#include "compression/kernels/numerics.hpp"
#include "compression/kernels/mode_dispatch.hpp"

namespace dlk::codec::avx512 {
namespace {

inline __mmask16 tail_mask(size_t remaining) {
  return remaining >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << remaining) - 1);
}

// Masked loads and stores only for a partial last group: on Zen 5 a stream of
// masked loads that miss the caches reads DRAM at about a quarter of the speed of
// plain loads (measured: 9 against 37 GB/s), even with every mask bit set.
inline __m512 load(const float *p, __mmask16 m) {
  return m == 0xFFFF ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(m, p);
}

inline void store(float *p, __m512 v, __mmask16 m) {
  if (m == 0xFFFF)
    _mm512_storeu_ps(p, v);
  else
    _mm512_mask_storeu_ps(p, m, v);
}

// The first `bytes` (< 64) bytes at p, zeros after them.
inline __m512i load_partial_bytes(const uint8_t *p, size_t bytes) {
  return _mm512_maskz_loadu_epi8((__mmask64(1) << bytes) - 1, p);
}

// Calls body(i, m) for the groups i = begin, begin + 16, ... of [begin, end): the
// full ones with a constant all-ones mask (so that the compiler drops the masking
// and the branches on it), then the partial last one with its mask. Stops before
// the first group for which body returns false; returns where it stopped (end
// when it did not).
template <class Body>
inline size_t for_each_group_while(size_t begin, size_t end, Body &&body) {
  size_t i = begin;
  for (; i + kGroup <= end; i += kGroup)
    if (!body(i, __mmask16(0xFFFF))) return i;
  if (i < end && !body(i, tail_mask(end - i))) return i;
  return end;
}

// for_each_group_while over [0, len), never stopping.
template <class Body>
inline void for_each_group(size_t len, Body &&body) {
  for_each_group_while(0, len, [&](size_t g, __mmask16 m) {
    body(g, m);
    return true;
  });
}

// v = input (+ residual) for the lanes of m, 0 elsewhere.
inline __m512 load_v(const float *input, const float *residual, __mmask16 m) {
  const __m512 x = load(input, m);
  return residual ? _mm512_add_ps(x, load(residual, m)) : x;
}

// reduce_lanes16 (numerics.hpp) on one vector: halves added as 8, 4, 2, 1 lanes.
inline float reduce_lanes16(__m512 v) {
  const __m256 s8 = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
}

// Writes the decoded lanes of m as the Store mode says.
template <Store S>
inline void put(float *out, __m512 d, __mmask16 m) {
  if (S == Store::accumulate)
    store(out, _mm512_add_ps(load(out, m), d), m);
  else if (S == Store::overwrite_streaming && m == 0xFFFF &&
           reinterpret_cast<uintptr_t>(out) % 64 == 0)
    _mm512_stream_ps(out, d);
  else
    store(out, d, m);
}

}  // namespace
}  // namespace dlk::codec::avx512
