// int8 / int4 blockwise quantization, avx2 tier: the same operations as
// numerics.hpp on two 8-lane halves (vmaxps/vminps order the clamp as clamp_code).
#include "compression/kernels/avx2/avx2_common.hpp"
#include "compression/kernels/byte_vectors.hpp"
#include "compression/kernels/numerics.hpp"

namespace dlk::codec::avx2 {
namespace {

inline __m256i mix(__m256i x) {
  x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 16));
  x = _mm256_mullo_epi32(x, _mm256_set1_epi32(0x7FEB352D));
  x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 15));
  x = _mm256_mullo_epi32(x, _mm256_set1_epi32(static_cast<int>(0x846CA68Bu)));
  return _mm256_xor_si256(x, _mm256_srli_epi32(x, 16));
}

// random_word(key, index) for the 8 indices first, first + 1, ...; first is a
// multiple of 8, so the low words do not carry into the high word.
inline __m256i random_words(uint64_t key, uint64_t first) {
  const __m256i lo = _mm256_xor_si256(
      _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(first))),
                       _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)),
      _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(key))));
  const uint32_t hi = static_cast<uint32_t>(first >> 32) ^ static_cast<uint32_t>(key >> 32);
  return mix(_mm256_add_epi32(mix(lo), _mm256_set1_epi32(static_cast<int>(hi))));
}

template <bool Stochastic>
inline __m256 round_code(__m256 y, uint64_t key, uint64_t first) {
  if (!Stochastic) return _mm256_round_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256 uniform = _mm256_mul_ps(
      _mm256_cvtepi32_ps(_mm256_srli_epi32(random_words(key, first), 8)), _mm256_set1_ps(0x1p-24f));
  const __m256 down = _mm256_floor_ps(y);
  const __m256 up = _mm256_cmp_ps(uniform, _mm256_sub_ps(y, down), _CMP_LT_OQ);
  return _mm256_add_ps(down, _mm256_and_ps(up, _mm256_set1_ps(1.0f)));
}

inline uint32_t reduce_max(__m256i v) {
  __m128i m = _mm_max_epu32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  m = _mm_max_epu32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
  m = _mm_max_epu32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(m));
}

// 16 int32 codes in [-127, 127] -> 16 bytes in order.
inline __m128i narrow_codes(__m256i lo, __m256i hi) {
  const __m256i words = _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xD8);
  return _mm_packs_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
}

// dequantize (numerics.hpp) on 8 lanes: code 0 gives +0 whatever the scale.
inline __m256 dequantize_v(__m256i code, __m256 scale) {
  const __m256 zero_code =
      _mm256_castsi256_ps(_mm256_cmpeq_epi32(code, _mm256_setzero_si256()));
  return _mm256_andnot_ps(zero_code, _mm256_mul_ps(_mm256_cvtepi32_ps(code), scale));
}

template <int Bits, bool Stochastic>
void encode(const float *input, float *residual, size_t count, size_t block_size, uint64_t key,
            uint8_t *scales, uint8_t *codes) {
  constexpr float kMaxCode = quantize_max_code(Bits);
  const __m256i magnitude = _mm256_set1_epi32(0x7FFFFFFF);
  for (size_t start = 0, block = 0; start < count; start += block_size, ++block) {
    const size_t len = block_length(block_size, count, start);
    const float *x = input + start;
    float *r = residual ? residual + start : nullptr;

    __m256i max_key = _mm256_setzero_si256();
    for_each_group(len, [&](size_t g, const PairMask &m) {
      const Pair v = load_v(x + g, r ? r + g : nullptr, m);
      max_key = _mm256_max_epu32(max_key, _mm256_and_si256(_mm256_castps_si256(v.lo), magnitude));
      max_key = _mm256_max_epu32(max_key, _mm256_and_si256(_mm256_castps_si256(v.hi), magnitude));
    });
    const BlockScale s = block_scale(reduce_max(max_key), kMaxCode);
    store_le<float>(scales + 4 * block, s.scale);

    const __m256 inverse = _mm256_set1_ps(s.inverse), scale = _mm256_set1_ps(s.scale);
    const __m256 lo = _mm256_set1_ps(-kMaxCode), hi = _mm256_set1_ps(kMaxCode);
    const bool stochastic = Stochastic && rounds_stochastically(s.scale);
    auto quantize = [&](__m256 v, __m256i lanes, uint64_t first) {
      const __m256 y = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(v, inverse), lo), hi);
      const __m256 q = stochastic ? round_code<true>(y, key, first) : round_code<false>(y, key, first);
      // Lanes past the end hold code 0, so the padding nibble of int4 is 0.
      return _mm256_and_si256(_mm256_cvttps_epi32(q), lanes);
    };
    for_each_group(len, [&](size_t g, const PairMask &m) {
      const size_t i = start + g;
      const Pair v = load_v(x + g, r ? r + g : nullptr, m);
      const __m256i code_lo = quantize(v.lo, m.lo, i), code_hi = quantize(v.hi, m.hi, i + 8);
      const __m128i code8 = narrow_codes(code_lo, code_hi);
      if (Bits == 8) {
        if (m.full)
          _mm_storeu_si128(reinterpret_cast<__m128i *>(codes + i), code8);
        else
          store_partial(codes + i, code8, len - g);
      } else {
        const __m128i packed = pack_nibbles(code8);
        if (m.full)
          _mm_storel_epi64(reinterpret_cast<__m128i *>(codes + i / 2), packed);
        else
          store_partial(codes + i / 2, packed, (len - g + 1) / 2);
      }
      if (r)
        store_pair(r + g,
                   {_mm256_sub_ps(v.lo, dequantize_v(code_lo, scale)),
                    _mm256_sub_ps(v.hi, dequantize_v(code_hi, scale))},
                   m);
    });
  }
}

// The 16 codes of elements i.. as bytes in order (int4: nibbles 0..15), reading
// only the bytes of `remaining` elements.
template <int Bits>
inline __m128i load_codes(const uint8_t *codes, size_t i, size_t remaining) {
  if (Bits == 8)
    return remaining >= 16 ? _mm_loadu_si128(reinterpret_cast<const __m128i *>(codes + i))
                           : load_partial(codes + i, remaining);
  return unpack_nibbles(remaining >= 16
                            ? _mm_loadl_epi64(reinterpret_cast<const __m128i *>(codes + i / 2))
                            : load_partial(codes + i / 2, (remaining + 1) / 2));
}

// The low 8 bytes of b as 8 int32 codes (int4: nibbles sign-extended from 4 bits).
template <int Bits>
inline __m256i widen(__m128i b) {
  if (Bits == 8) return _mm256_cvtepi8_epi32(b);
  return _mm256_srai_epi32(_mm256_slli_epi32(_mm256_cvtepu8_epi32(b), 28), 28);
}

template <int Bits, Store S>
void decode(const uint8_t *scales, const uint8_t *codes, size_t count, size_t block_size,
            float *output) {
  for (size_t start = 0, block = 0; start < count; start += block_size, ++block) {
    const size_t len = block_length(block_size, count, start);
    const __m256 scale = _mm256_set1_ps(load_le<float>(scales + 4 * block));
    for_each_group(len, [&](size_t g, const PairMask &m) {
      const size_t i = start + g;
      const __m128i b = load_codes<Bits>(codes, i, m.full ? kGroup : len - g);
      const Pair d{dequantize_v(widen<Bits>(b), scale),
                   dequantize_v(widen<Bits>(_mm_srli_si128(b, 8)), scale)};
      put<S>(output + i, d, m);
    });
  }
}

}  // namespace

void quantize_encode(const float *input, float *residual, size_t count, size_t block_size,
                     const QuantizeSpec &spec, uint8_t *scales, uint8_t *codes) {
  with_quantize_spec(spec, [&](auto bits, auto stochastic) {
    encode<decltype(bits)::value, decltype(stochastic)::value>(input, residual, count, block_size,
                                                               spec.key, scales, codes);
  });
}

void quantize_decode(const uint8_t *scales, const uint8_t *codes, size_t count, size_t block_size,
                     int bits, float *output, Store store_mode) {
  with_store(store_mode, [&](auto store) {
    with_bits(bits, [&](auto width) {
      decode<decltype(width)::value, decltype(store)::value>(scales, codes, count, block_size,
                                                             output);
    });
  });
}

}  // namespace dlk::codec::avx2
