// Helpers shared by the avx2 kernels (AVX2 + F16C). A group of 16 elements is two
// 8-lane vectors: lo holds lanes 0-7 and hi lanes 8-15 of numerics.hpp's 16 lanes.
// Internal linkage, see kernels/numerics.hpp.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "compression/kernels/kernel_table.hpp"
#include "compression/kernels/numerics.hpp"
#include "compression/kernels/mode_dispatch.hpp"

namespace dlk::codec::avx2 {
namespace {

struct Pair {
  __m256 lo, hi;
};

struct PairMask {
  __m256i lo, hi;  // all ones in the lanes of the group that exist
  bool full;
};

inline PairMask tail_mask(size_t remaining) {
  const int n = remaining >= 16 ? 16 : static_cast<int>(remaining);
  const __m256i count = _mm256_set1_epi32(n);
  return {_mm256_cmpgt_epi32(count, _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)),
          _mm256_cmpgt_epi32(count, _mm256_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15)), n == 16};
}

// Calls body(i, m) for the groups i = begin, begin + 16, ... of [begin, end): the
// full ones with a constant full mask (so that the compiler drops the branches on
// it), then the partial last one with its mask. Stops before the first group for
// which body returns false; returns where it stopped (end when it did not).
template <class Body>
inline size_t for_each_group_while(size_t begin, size_t end, Body &&body) {
  const __m256i all = _mm256_set1_epi32(-1);
  size_t i = begin;
  for (; i + kGroup <= end; i += kGroup)
    if (!body(i, PairMask{all, all, true})) return i;
  if (i < end && !body(i, tail_mask(end - i))) return i;
  return end;
}

// for_each_group_while over [0, len), never stopping.
template <class Body>
inline void for_each_group(size_t len, Body &&body) {
  for_each_group_while(0, len, [&](size_t g, const PairMask &m) {
    body(g, m);
    return true;
  });
}

inline Pair load_pair(const float *p, const PairMask &m) {
  if (m.full) return {_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)};
  return {_mm256_maskload_ps(p, m.lo), _mm256_maskload_ps(p + 8, m.hi)};
}

inline void store_pair(float *p, Pair v, const PairMask &m) {
  if (m.full) {
    _mm256_storeu_ps(p, v.lo);
    _mm256_storeu_ps(p + 8, v.hi);
  } else {
    _mm256_maskstore_ps(p, m.lo, v.lo);
    _mm256_maskstore_ps(p + 8, m.hi, v.hi);
  }
}

// v = input (+ residual) for the lanes of m, 0 elsewhere.
inline Pair load_v(const float *input, const float *residual, const PairMask &m) {
  const Pair x = load_pair(input, m);
  if (!residual) return x;
  const Pair r = load_pair(residual, m);
  return {_mm256_add_ps(x.lo, r.lo), _mm256_add_ps(x.hi, r.hi)};
}

// reduce_lanes16 (numerics.hpp): lanes l + 8 first, then 4, 2, 1.
inline float reduce_lanes16(Pair v) {
  const __m256 s8 = _mm256_add_ps(v.lo, v.hi);
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
}

// 16-bit lane mask of a pair of vector masks.
inline uint32_t bits_of(__m256 lo, __m256 hi) {
  return static_cast<uint32_t>(_mm256_movemask_ps(lo)) |
         (static_cast<uint32_t>(_mm256_movemask_ps(hi)) << 8);
}

// Writes the decoded lanes as the Store mode says.
template <Store S>
inline void put(float *out, Pair d, const PairMask &m) {
  if (S == Store::accumulate) {
    const Pair o = load_pair(out, m);
    store_pair(out, {_mm256_add_ps(o.lo, d.lo), _mm256_add_ps(o.hi, d.hi)}, m);
  } else if (S == Store::overwrite_streaming && m.full &&
             reinterpret_cast<uintptr_t>(out) % 32 == 0) {
    _mm256_stream_ps(out, d.lo);
    _mm256_stream_ps(out + 8, d.hi);
  } else {
    store_pair(out, d, m);
  }
}

}  // namespace
}  // namespace dlk::codec::avx2
