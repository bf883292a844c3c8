// fp16 / bf16 casts, avx512 tier. fp16 uses vcvtps2ph/vcvtph2ps (AVX512F); bf16
// rounds with integer operations (vcvtneps2bf16 would flush subnormals).
#include "compression/kernels/avx512/avx512_common.hpp"
#include "compression/kernels/numerics.hpp"

namespace dlk::codec::avx512 {
namespace {

// bf16_from_float (numerics.hpp) on 16 lanes, each result in the low 16 bits.
inline __m512i bf16_round(__m512 v) {
  const __m512i b = _mm512_castps_si512(v);
  const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(b, 16), _mm512_set1_epi32(1));
  const __m512i rounded =
      _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(b, _mm512_set1_epi32(0x7FFF)), odd), 16);
  const __m512i quiet_nan = _mm512_or_si512(_mm512_srli_epi32(b, 16), _mm512_set1_epi32(0x0040));
  const __mmask16 is_nan = _mm512_cmpgt_epu32_mask(
      _mm512_and_si512(b, _mm512_set1_epi32(0x7FFFFFFF)), _mm512_set1_epi32(0x7F800000));
  return _mm512_mask_blend_epi32(is_nan, rounded, quiet_nan);
}

inline __m512 bf16_widen(__m512i h32) { return _mm512_castsi512_ps(_mm512_slli_epi32(h32, 16)); }

template <HalfFormat F>
void encode(const float *input, float *residual, size_t count, uint8_t *codes) {
  for_each_group(count, [&](size_t i, __mmask16 m) {
    const __m512 v = load_v(input + i, residual ? residual + i : nullptr, m);
    __m256i h;
    __m512 decoded;
    if (F == HalfFormat::fp16) {
      h = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      decoded = _mm512_cvtph_ps(h);
    } else {
      const __m512i h32 = bf16_round(v);
      h = _mm512_cvtepi32_epi16(h32);
      decoded = bf16_widen(h32);
    }
    if (m == 0xFFFF)
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(codes + 2 * i), h);
    else
      _mm512_mask_cvtepi32_storeu_epi16(codes + 2 * i, m, _mm512_cvtepu16_epi32(h));
    if (residual) store(residual + i, _mm512_sub_ps(v, decoded), m);
  });
}

template <HalfFormat F, Store S>
void decode(const uint8_t *codes, size_t count, float *output) {
  for_each_group(count, [&](size_t i, __mmask16 m) {
    const __m256i h =
        m == 0xFFFF ? _mm256_loadu_si256(reinterpret_cast<const __m256i *>(codes + 2 * i))
                    : _mm512_castsi512_si256(load_partial_bytes(codes + 2 * i, 2 * (count - i)));
    const __m512 d =
        F == HalfFormat::fp16 ? _mm512_cvtph_ps(h) : bf16_widen(_mm512_cvtepu16_epi32(h));
    put<S>(output + i, d, m);
  });
}

}  // namespace

void cast_encode(const float *input, float *residual, size_t count, HalfFormat format,
                 uint8_t *codes) {
  with_half_format(format, [&](auto half) {
    encode<decltype(half)::value>(input, residual, count, codes);
  });
}

void cast_decode(const uint8_t *codes, size_t count, HalfFormat format, float *output,
                 Store store_mode) {
  with_store(store_mode, [&](auto store) {
    with_half_format(format, [&](auto half) {
      decode<decltype(half)::value, decltype(store)::value>(codes, count, output);
    });
  });
}

}  // namespace dlk::codec::avx512
