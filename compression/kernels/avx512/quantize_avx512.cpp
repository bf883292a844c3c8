// int8 / int4 blockwise quantization, avx512 tier: the same operations as
// numerics.hpp on 16 lanes (vmaxps/vminps order the clamp as clamp_code does).
#include "compression/kernels/avx512/avx512_common.hpp"
#include "compression/kernels/byte_vectors.hpp"
#include "compression/kernels/numerics.hpp"

namespace dlk::codec::avx512 {
namespace {

// random_word(key, index) for the 16 indices first, first + 1, ...; first is a
// multiple of 16, so the low words do not carry into the high word.
inline __m512i random_words(uint64_t key, uint64_t first) {
  const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i lo = _mm512_xor_si512(
      _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(first))), lanes),
      _mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(key))));
  const uint32_t hi = static_cast<uint32_t>(first >> 32) ^ static_cast<uint32_t>(key >> 32);
  auto mix = [](__m512i x) {
    x = _mm512_xor_si512(x, _mm512_srli_epi32(x, 16));
    x = _mm512_mullo_epi32(x, _mm512_set1_epi32(0x7FEB352D));
    x = _mm512_xor_si512(x, _mm512_srli_epi32(x, 15));
    x = _mm512_mullo_epi32(x, _mm512_set1_epi32(static_cast<int>(0x846CA68Bu)));
    return _mm512_xor_si512(x, _mm512_srli_epi32(x, 16));
  };
  return mix(_mm512_add_epi32(mix(lo), _mm512_set1_epi32(static_cast<int>(hi))));
}

template <bool Stochastic>
inline __m512 round_code(__m512 y, uint64_t key, uint64_t first) {
  if (!Stochastic) return _mm512_roundscale_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 uniform = _mm512_mul_ps(
      _mm512_cvtepi32_ps(_mm512_srli_epi32(random_words(key, first), 8)), _mm512_set1_ps(0x1p-24f));
  const __m512 down = _mm512_roundscale_ps(y, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  const __mmask16 up = _mm512_cmp_ps_mask(uniform, _mm512_sub_ps(y, down), _CMP_LT_OQ);
  return _mm512_mask_add_ps(down, up, down, _mm512_set1_ps(1.0f));
}

// dequantize (numerics.hpp) on 16 lanes: code 0 gives +0 whatever the scale.
inline __m512 dequantize_v(__m512i code, __m512 scale) {
  return _mm512_maskz_mov_ps(_mm512_test_epi32_mask(code, code),
                             _mm512_mul_ps(_mm512_cvtepi32_ps(code), scale));
}

template <int Bits, bool Stochastic>
void encode(const float *input, float *residual, size_t count, size_t block_size, uint64_t key,
            uint8_t *scales, uint8_t *codes) {
  constexpr float kMaxCode = quantize_max_code(Bits);
  const __m512i magnitude = _mm512_set1_epi32(0x7FFFFFFF);
  for (size_t start = 0, block = 0; start < count; start += block_size, ++block) {
    const size_t len = block_length(block_size, count, start);
    const float *x = input + start;
    float *r = residual ? residual + start : nullptr;

    __m512i max_key = _mm512_setzero_si512();
    for_each_group(len, [&](size_t g, __mmask16 m) {
      const __m512 v = load_v(x + g, r ? r + g : nullptr, m);
      max_key = _mm512_max_epu32(max_key, _mm512_and_si512(_mm512_castps_si512(v), magnitude));
    });
    const BlockScale s =
        block_scale(static_cast<uint32_t>(_mm512_reduce_max_epu32(max_key)), kMaxCode);
    store_le<float>(scales + 4 * block, s.scale);

    const __m512 inverse = _mm512_set1_ps(s.inverse), scale = _mm512_set1_ps(s.scale);
    const __m512 lo = _mm512_set1_ps(-kMaxCode), hi = _mm512_set1_ps(kMaxCode);
    const bool stochastic = Stochastic && rounds_stochastically(s.scale);
    for_each_group(len, [&](size_t g, __mmask16 m) {
      const size_t i = start + g;
      const __m512 v = load_v(x + g, r ? r + g : nullptr, m);
      const __m512 y = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(v, inverse), lo), hi);
      // Lanes past the end hold code 0, so the padding nibble of int4 is 0.
      const __m512 q = stochastic ? round_code<true>(y, key, i) : round_code<false>(y, key, i);
      const __m512i code = _mm512_maskz_mov_epi32(m, _mm512_cvttps_epi32(q));
      const __m128i code8 = _mm512_cvtepi32_epi8(code);
      if (Bits == 8) {
        if (m == 0xFFFF)
          _mm_storeu_si128(reinterpret_cast<__m128i *>(codes + i), code8);
        else
          _mm512_mask_cvtepi32_storeu_epi8(codes + i, m, code);
      } else {
        const __m128i packed = pack_nibbles(code8);
        if (m == 0xFFFF)
          _mm_storel_epi64(reinterpret_cast<__m128i *>(codes + i / 2), packed);
        else
          store_partial(codes + i / 2, packed, (len - g + 1) / 2);
      }
      if (r) store(r + g, _mm512_sub_ps(v, dequantize_v(code, scale)), m);
    });
  }
}

// The 16 codes of elements i.. (int8: 16 bytes; int4: 8 bytes of nibbles),
// sign-extended to 32 bits; reads only the bytes of `remaining` elements.
template <int Bits>
inline __m512i load_codes(const uint8_t *codes, size_t i, size_t remaining) {
  if (Bits == 8) {
    const __m128i b =
        remaining >= 16
            ? _mm_loadu_si128(reinterpret_cast<const __m128i *>(codes + i))
            : _mm512_castsi512_si128(load_partial_bytes(codes + i, remaining));
    return _mm512_cvtepi8_epi32(b);
  }
  const __m128i b =
      remaining >= 16
          ? _mm_loadl_epi64(reinterpret_cast<const __m128i *>(codes + i / 2))
          : _mm512_castsi512_si128(load_partial_bytes(codes + i / 2, (remaining + 1) / 2));
  const __m512i nibbles = _mm512_cvtepu8_epi32(unpack_nibbles(b));
  return _mm512_srai_epi32(_mm512_slli_epi32(nibbles, 28), 28);
}

template <int Bits, Store S>
void decode(const uint8_t *scales, const uint8_t *codes, size_t count, size_t block_size,
            float *output) {
  for (size_t start = 0, block = 0; start < count; start += block_size, ++block) {
    const size_t len = block_length(block_size, count, start);
    const __m512 scale = _mm512_set1_ps(load_le<float>(scales + 4 * block));
    for_each_group(len, [&](size_t g, __mmask16 m) {
      const size_t i = start + g;
      const __m512i code = load_codes<Bits>(codes, i, m == 0xFFFF ? kGroup : len - g);
      put<S>(output + i, dequantize_v(code, scale), m);
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

}  // namespace dlk::codec::avx512
