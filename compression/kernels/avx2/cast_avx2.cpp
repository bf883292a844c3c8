// fp16 / bf16 casts, avx2 tier: fp16 with F16C, bf16 with integer rounding.
#include "compression/kernels/avx2/avx2_common.hpp"
#include "compression/kernels/byte_vectors.hpp"
#include "compression/kernels/numerics.hpp"

namespace dlk::codec::avx2 {
namespace {

// bf16_from_float (numerics.hpp) on 8 lanes, each result in the low 16 bits.
inline __m256i bf16_round(__m256 v) {
  const __m256i b = _mm256_castps_si256(v);
  const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(1));
  const __m256i rounded =
      _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(b, _mm256_set1_epi32(0x7FFF)), odd), 16);
  const __m256i quiet_nan = _mm256_or_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(0x0040));
  // Magnitudes are < 2^31, so the signed compare orders them as unsigned.
  const __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(b, _mm256_set1_epi32(0x7FFFFFFF)),
                                            _mm256_set1_epi32(0x7F800000));
  return _mm256_blendv_epi8(rounded, quiet_nan, is_nan);
}

inline __m256 bf16_widen(__m128i h) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

template <HalfFormat F>
void encode(const float *input, float *residual, size_t count, uint8_t *codes) {
  for_each_group(count, [&](size_t i, const PairMask &m) {
    const Pair v = load_v(input + i, residual ? residual + i : nullptr, m);
    __m128i h_lo, h_hi;
    Pair decoded;
    if (F == HalfFormat::fp16) {
      h_lo = _mm256_cvtps_ph(v.lo, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      h_hi = _mm256_cvtps_ph(v.hi, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      decoded = {_mm256_cvtph_ps(h_lo), _mm256_cvtph_ps(h_hi)};
    } else {
      const __m256i words = _mm256_permute4x64_epi64(
          _mm256_packus_epi32(bf16_round(v.lo), bf16_round(v.hi)), 0xD8);
      h_lo = _mm256_castsi256_si128(words);
      h_hi = _mm256_extracti128_si256(words, 1);
      decoded = {bf16_widen(h_lo), bf16_widen(h_hi)};
    }
    if (m.full) {
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(codes + 2 * i), _mm256_set_m128i(h_hi, h_lo));
    } else {
      const size_t bytes = 2 * (count - i);
      store_partial(codes + 2 * i, h_lo, bytes < 16 ? bytes : 16);
      if (bytes > 16) store_partial(codes + 2 * i + 16, h_hi, bytes - 16);
    }
    if (residual)
      store_pair(residual + i, {_mm256_sub_ps(v.lo, decoded.lo), _mm256_sub_ps(v.hi, decoded.hi)},
                 m);
  });
}

template <HalfFormat F, Store S>
void decode(const uint8_t *codes, size_t count, float *output) {
  for_each_group(count, [&](size_t i, const PairMask &m) {
    const size_t remaining = count - i;
    __m128i h_lo, h_hi;
    if (m.full) {
      h_lo = _mm_loadu_si128(reinterpret_cast<const __m128i *>(codes + 2 * i));
      h_hi = _mm_loadu_si128(reinterpret_cast<const __m128i *>(codes + 2 * i + 16));
    } else {
      h_lo = load_partial(codes + 2 * i, 2 * (remaining < 8 ? remaining : 8));
      h_hi = remaining > 8 ? load_partial(codes + 2 * i + 16, 2 * (remaining - 8))
                           : _mm_setzero_si128();
    }
    const Pair d = F == HalfFormat::fp16 ? Pair{_mm256_cvtph_ps(h_lo), _mm256_cvtph_ps(h_hi)}
                                         : Pair{bf16_widen(h_lo), bf16_widen(h_hi)};
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

}  // namespace dlk::codec::avx2
