// The wide-row kernel's int8 tiles (kernels/conv2d_direct_kernels.hpp): the
// padded planes hold k-quads of u8 (channels 4u .. 4u + 3 of a pixel, s8
// shifted by 128 as the integer GEMM packs A) and the weights k-quads of s8
// (the same four channels of a tap) in each 32-bit element, so one EVEX
// vpdpbusd per weight quad and vector of 16 wide columns does four
// multiply-adds a lane into s32 sums, which wrap modulo 2^32 as dlk.h's
// integer rule does; the packing of the quads; and the store of the sums into
// f32, s8 or u8 dst. Compiled with -mavx512f
// -mavx512bw -mavx512vl -mavx512vnni only (never -mavxvnni: its VEX form is
// an illegal instruction on Zen 4, which has AVX512_VNNI and no AVX-VNNI);
// called only where the CPU has AVX512_VNNI (conv2d_wide_rows_applies).

#include <algorithm>
#include <cstdint>

#include "backends/cpu_avx512/kernels/conv2d_direct_kernels.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"
#include "backends/cpu_avx512/kernels/conv2d_wide_rows_tile_avx512.inc"

// s32 sums: the tile's starting values (bias) are the s32 starts' bits, its B
// vectors u8 quads, its broadcast weights s8 quads.
struct DotU8S8 {
  using Acc = __m512i;
  static __m512i sums(__m512 bits) { return _mm512_castps_si512(bits); }
  static __m512 bits(__m512i sums) { return _mm512_castsi512_ps(sums); }
  // vpdpbusd in place: through _mm512_dpbusd_epi32 (whose accumulator is its
  // only destination) GCC 12 copied every sum to another register and to the
  // stack at each tap of the 8 x 3 tile, 29 % of the VNNI peak. (EVEX: zmm.)
  static __m512i madd(__m512i acc, __m512 a, __m512 b) {
    asm("vpdpbusd %[a], %[b], %[acc]" : [acc] "+v"(acc) : [a] "v"(a), [b] "v"(b));
    return acc;
  }
  static __m512i relu(__m512i v) { return _mm512_maskz_max_epi32(0xffff, v, _mm512_setzero_si512()); }
};

// (maskz forms throughout: GCC warns of the plain forms' undefined pass-through.)

}  // namespace

WideRowsTile wide_rows_int8_tile(int rows, int vectors) {
  return wide_rows_tile_of<DotU8S8>(rows, vectors);
}

namespace {

// The byte permutation that turns a quad of channels' taps (c x khw bytes as
// they lie, 4 khw <= 64) into k-quads, out byte 4t + i = in byte i khw + t. AVX-512
// BW has no byte permute across 128-bit lanes, so each output word's two bytes
// are brought into that word by a word permute each (from_even / from_odd:
// the in word holding out byte 2q's / 2q + 1's source) and picked by vpshufb
// (pick_even / pick_odd; 0x80 zeroes the other byte).
struct TapsToQuads {
  __m512i from_even, from_odd, pick_even, pick_odd;
  explicit TapsToQuads(int64_t khw) {
    const __m512i q = _mm512_cvtepu8_epi16(_mm256_setr_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
        24, 25, 26, 27, 28, 29, 30, 31));
    // Out byte 2q is byte i = 2 (q & 1) of tap q >> 1, in byte s0; 2q + 1 is s0 + khw.
    const __m512i s0 = _mm512_add_epi16(
        _mm512_mullo_epi16(_mm512_slli_epi16(_mm512_and_si512(q, _mm512_set1_epi16(1)), 1),
                           _mm512_set1_epi16(static_cast<int16_t>(khw))),
        _mm512_srli_epi16(q, 1));
    const __m512i s1 = _mm512_add_epi16(s0, _mm512_set1_epi16(static_cast<int16_t>(khw)));
    from_even = _mm512_srli_epi16(s0, 1);
    from_odd = _mm512_srli_epi16(s1, 1);
    // Within its 128-bit lane, the byte 2q + (s & 1) of the permuted word.
    const __m512i two_q = _mm512_slli_epi16(q, 1), ones = _mm512_set1_epi16(1);
    const __m512i fifteen = _mm512_set1_epi16(15);
    const auto byte_of = [&](__m512i src) {
      return _mm512_and_si512(_mm512_add_epi16(two_q, _mm512_and_si512(src, ones)), fifteen);
    };
    pick_even = _mm512_or_si512(byte_of(s0), _mm512_set1_epi16(static_cast<int16_t>(0x8000)));
    pick_odd = _mm512_or_si512(_mm512_slli_epi16(byte_of(s1), 8), _mm512_set1_epi16(0x80));
  }
  __m512i operator()(__m512i taps) const {
    return _mm512_or_si512(
        _mm512_shuffle_epi8(_mm512_permutexvar_epi16(from_even, taps), pick_even),
        _mm512_shuffle_epi8(_mm512_permutexvar_epi16(from_odd, taps), pick_odd));
  }
};

// The weights' sum, modulo 2^32 as the sums wrap. (Added up in memory: GCC
// 12's _mm512_reduce_add_epi32 reads an uninitialised register, an error
// under -Werror.)
int32_t lanes_sum(__m512i sum) {
  alignas(64) uint32_t lanes[16];
  _mm512_store_si512(lanes, sum);
  uint32_t total = 0;
  for (const uint32_t lane : lanes) total += lane;
  return static_cast<int32_t>(total);
}

// Up to 16 taps: a quad of channels a step, one load, one permutation, one
// store (a tap of 16 a step, below, took a third of res5b 3x3's time at batch 1).
int32_t quad_few_taps(const int8_t *w, int64_t c, int64_t khw, const TapsToQuads &to_quads,
                      uint32_t *row) {
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i sum = _mm512_setzero_si512();
  const auto units = static_cast<__mmask16>((1u << khw) - 1u);
  for (int64_t u = 0; 4 * u < c; ++u) {
    const __m512i taps = _mm512_maskz_loadu_epi8(
        byte_range(0, std::min<int64_t>(4, c - 4 * u) * khw), w + 4 * u * khw);
    const __m512i quads = _mm512_maskz_mov_epi32(units, to_quads(taps));
    _mm512_mask_storeu_epi32(row + u * khw, units, quads);
    sum = _mm512_dpbusd_epi32(sum, ones, quads);
  }
  return lanes_sum(sum);
}

// More taps: 16 taps of a channel a step, widened and shifted into the quads.
int32_t quad_many_taps(const int8_t *w, int64_t c, int64_t khw, uint32_t *row) {
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i sum = _mm512_setzero_si512();
  for (int64_t u = 0; 4 * u < c; ++u)
    for (int64_t t0 = 0; t0 < khw; t0 += 16) {
      const auto mask = static_cast<__mmask16>((1u << std::min<int64_t>(16, khw - t0)) - 1u);
      __m512i quad = _mm512_setzero_si512();
      for (int64_t i = 0; i < 4 && 4 * u + i < c; ++i) {
        const __m128i taps = _mm_maskz_loadu_epi8(mask, w + (4 * u + i) * khw + t0);
        quad = _mm512_or_si512(quad, _mm512_maskz_sllv_epi32(
                                         0xffff, _mm512_maskz_cvtepu8_epi32(0xffff, taps),
                                         _mm512_set1_epi32(8 * i)));
      }
      _mm512_mask_storeu_epi32(row + u * khw + t0, mask, quad);
      sum = _mm512_dpbusd_epi32(sum, ones, quad);
    }
  return lanes_sum(sum);
}

}  // namespace

void wide_rows_int8_quad_weights(const int8_t *w, int64_t count, int64_t c, int64_t khw,
                                 int64_t row_stride, uint32_t *rows, int32_t *sums) {
  if (4 * khw <= 64) {
    const TapsToQuads to_quads(khw);
    for (int64_t o = 0; o < count; ++o)
      sums[o] = quad_few_taps(w + o * c * khw, c, khw, to_quads, rows + o * row_stride);
  } else {
    for (int64_t o = 0; o < count; ++o)
      sums[o] = quad_many_taps(w + o * c * khw, c, khw, rows + o * row_stride);
  }
}

void wide_rows_int8_quad_row(const uint8_t *const channels[4], int64_t w, int64_t x0,
                             int64_t stride, int64_t width, uint8_t zero_point, bool shift,
                             int64_t ahead, uint32_t *out) {
  // The rows `ahead` bytes on, which the next unit's call reads: without it
  // the masked loads below waited on memory for three quarters of the
  // staging's time (ResNet-50 res4a_3x3 int8 NCHW, 28-byte rows of 4 channels
  // a plane apart: a stream too short for the hardware's prefetcher).
  if (ahead != 0) {
    const int64_t first = std::max<int64_t>(x0, 0), end = std::min(w, x0 + stride * width);
    for (int i = 0; i < 4; ++i)
      if (channels[i] != nullptr)
        for (int64_t x = first; x < end + 63; x += 64)
          _mm_prefetch(reinterpret_cast<const char *>(
                           lane_address(channels[i], ahead + std::min(x, end - 1))),
                       _MM_HINT_T0);
  }
  const __m512i flip = _mm512_set1_epi32(shift ? int32_t(0x80808080u) : 0);
  if (stride == 1) {
    // The four rows' 16 columns side by side (row i in 128-bit lane i), one
    // vpermd gathers column quad q's dwords (4 columns of each row) into lane
    // q and one vpshufb interleaves them, a byte of each row per column: 4
    // loads and 5 shuffles per 16 columns where widening each row into the
    // lanes, shifting and or-ing took 12 (ResNet-50 res2a_3x3 int8 at batch
    // 1 on the channel-lane kernel: the staging was 14 % of the call, now
    // 1.07x as fast a call).
    const __m512i quads_to_lanes =
        _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m512i rows_to_columns = _mm512_broadcast_i32x4(
        _mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
    const __m128i zero_bytes = _mm_set1_epi8(static_cast<char>(zero_point));
    for (int64_t jq = 0; jq < width; jq += 16) {
      const int64_t x = x0 + jq;
      const auto in = static_cast<__mmask16>(byte_range(-x, w - x));
      __m128i row[4];
      for (int i = 0; i < 4; ++i)
        row[i] = channels[i] == nullptr  // past c: the zero point's
                     ? zero_bytes
                     : _mm_mask_loadu_epi8(zero_bytes, in, lane_address(channels[i], x));
      const __m512i rows = _mm512_inserti32x4(
          _mm512_inserti32x4(
              _mm512_inserti32x4(_mm512_zextsi128_si512(row[0]), row[1], 1), row[2], 2),
          row[3], 3);
      const __m512i quad = _mm512_shuffle_epi8(
          _mm512_permutexvar_epi32(quads_to_lanes, rows), rows_to_columns);
      const auto n = static_cast<__mmask16>((1u << std::min<int64_t>(16, width - jq)) - 1u);
      _mm512_mask_storeu_epi32(out + jq, n, _mm512_xor_si512(quad, flip));
    }
    return;
  }
  for (int64_t jq = 0; jq < width; jq += 16) {
    // Lane l reads column x = x0 + stride (jq + l) of each channel's row.
    const int64_t x = x0 + stride * jq;
    __m512i quad = _mm512_setzero_si512();
    for (int i = 0; i < 4; ++i) {
      __m512i lanes;
      if (channels[i] == nullptr) {
        // Past c: any value times the weights' zeros; the zero point's.
        lanes = _mm512_set1_epi32(zero_point);
      } else {
        // Stride 2: 32 bytes, the even ones (each 16-bit lane's low byte).
        const auto in = static_cast<__mmask32>(byte_range(-x, w - x));
        lanes = _mm512_and_si512(
            _mm512_maskz_cvtepu16_epi32(0xffff, 
                _mm256_mask_loadu_epi8(_mm256_set1_epi8(static_cast<char>(zero_point)), in,
                                       lane_address(channels[i], x))),
            _mm512_set1_epi32(0xff));
      }
      quad = _mm512_or_si512(quad, _mm512_maskz_sllv_epi32(0xffff, lanes, _mm512_set1_epi32(8 * i)));
    }
    const auto n = static_cast<__mmask16>((1u << std::min<int64_t>(16, width - jq)) - 1u);
    _mm512_mask_storeu_epi32(out + jq, n, _mm512_xor_si512(quad, flip));
  }
}

}  // namespace dlk::cpu::kernels
