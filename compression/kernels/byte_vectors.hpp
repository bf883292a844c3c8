// SSE2 helpers for the int4 codes and partial loads, shared by the vector tiers.
// Internal linkage, see numerics.hpp.
#pragma once

#include <emmintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace dlk::codec {
namespace {

// 16 codes in [-8, 7], one per byte -> 8 bytes (low half), even element in the
// low nibble.
inline __m128i pack_nibbles(__m128i codes8) {
  const __m128i low = _mm_and_si128(codes8, _mm_set1_epi16(0x000F));
  const __m128i high = _mm_and_si128(_mm_srli_epi16(codes8, 4), _mm_set1_epi16(0x00F0));
  return _mm_packus_epi16(_mm_or_si128(low, high), _mm_setzero_si128());
}

// 8 bytes of nibbles (low half) -> 16 bytes, one nibble (0..15) per byte, in order.
inline __m128i unpack_nibbles(__m128i packed) {
  const __m128i low = _mm_and_si128(packed, _mm_set1_epi8(0x0F));
  const __m128i high = _mm_and_si128(_mm_srli_epi16(packed, 4), _mm_set1_epi8(0x0F));
  return _mm_unpacklo_epi8(low, high);
}

// Stores the first `bytes` (<= 16) bytes of v at dst. Through a local copy, so
// that v itself is not taken by address (which would keep it in memory in the
// hot loop that calls this for its last, partial group).
inline void store_partial(uint8_t *dst, __m128i v, size_t bytes) {
  alignas(16) uint8_t buffer[16];
  _mm_store_si128(reinterpret_cast<__m128i *>(buffer), v);
  std::memcpy(dst, buffer, bytes);
}

// The first `bytes` (<= 16) bytes at src, zeros after them; reads nothing more.
inline __m128i load_partial(const uint8_t *src, size_t bytes) {
  alignas(16) uint8_t buffer[16] = {};
  std::memcpy(buffer, src, bytes);
  return _mm_load_si128(reinterpret_cast<const __m128i *>(buffer));
}

}  // namespace
}  // namespace dlk::codec
