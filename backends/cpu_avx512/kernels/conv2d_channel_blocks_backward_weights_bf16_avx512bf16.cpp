// The channel-block backward-weights kernel's bf16 sums in pixel pairs
// (kernels/conv2d_direct_backward_weights_kernels.hpp): where vdpbf16ps does
// twice the FMAs' work (AMD), the products are not widened to f32 but taken
// two output pixels at a time: each 32-bit lane of a pair-major diff_dst
// vector holds one output channel's gradient at pixels 2q and 2q + 1 of an
// output row, and the broadcast input holds the two input values those pixels
// read at the tap, adjacent in the bf16 padded image at stride 1 (at stride 2
// in the image's rows split into their even and odd columns: padded column
// 2p + s is element p + s / 2 of phase s % 2); one vdpbf16ps adds both
// products into the channel's f32 sum; and the split into phases. Compiled
// with -mavx512f -mavx512bw -mavx512vl -mavx512bf16 only (the avx512 tier has
// BW and VL); called only where the CPU has AVX512_BF16
// (bf16_dot_outpaces_fma).
#include "common/immintrin.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "backends/cpu_avx512/kernels/conv2d_direct_backward_weights_kernels.hpp"

namespace dlk::cpu::kernels {
namespace {

constexpr int max_rows(int kw, int v) { return kChannelBlockMaxSums / (kw * v); }

__m512bh as_bh(__m512i v) { return (__m512bh)v; }

// The two bf16 values at p, p + 1 (any alignment) in every lane.
__m512i broadcast_pair(const uint16_t *p) {
  uint32_t pair;
  std::memcpy(&pair, p, sizeof pair);
  return _mm512_set1_epi32(static_cast<int>(pair));
}

// sums[t][V x 16] += the pair of input values at image[offsets[t / KW] + 2q +
// the tap's column (s = t % KW; Phased: (s % 2) x phase + s / 2) + the row's
// origin] . pair q's diff_dst, over `rows` output rows of ow pixels (origins
// row_step apart), t < R x KW. Of an odd row's last pair only the first input
// value is kept: its second pixel is a dummy, whose zero gradient would still
// make an infinite input that no pixel multiplies a NaN.
template <int KW, int R, int V, bool Phased>
void sum_pair_rows(const uint16_t *image, const int64_t *offsets, const uint32_t *pair_major,
                   int64_t rows, int64_t ow, int64_t row_step, int64_t phase, float *sums) {
  constexpr int T = R * KW;
  __m512 acc[T][V];
  int64_t off[R];
  // (Unrolled, or GCC keeps the sums in memory, as the f32 kernel.)
#pragma GCC unroll 32
  for (int t = 0; t < T; ++t)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) acc[t][v] = _mm512_load_ps(sums + (t * V + v) * 16);
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i) off[i] = offsets[i];
  // One pair's products; Last: an odd row's last pair.
  const auto pair = [&](const uint16_t *in, const uint32_t *g, auto last) {
    __m512i gv[V];
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) gv[v] = _mm512_load_si512(g + 16 * v);
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
      const uint16_t *p = in + off[i];
#pragma GCC unroll 8
      for (int s = 0; s < KW; ++s) {
        __m512i x = broadcast_pair(Phased ? p + (s % 2) * phase + s / 2 : p + s);
        if constexpr (decltype(last)::value) x = _mm512_and_si512(x, _mm512_set1_epi32(0xffff));
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v)
          acc[i * KW + s][v] = _mm512_dpbf16_ps(acc[i * KW + s][v], as_bh(x), as_bh(gv[v]));
      }
    }
  };
  const int64_t full = ow / 2;
  const uint32_t *g = pair_major;
  for (int64_t oy = 0; oy < rows; ++oy) {
    const uint16_t *row = image + oy * row_step;
    for (int64_t q = 0; q < full; ++q, g += 16 * V) pair(row + 2 * q, g, std::false_type{});
    if (ow % 2 != 0) {
      pair(row + 2 * full, g, std::true_type{});
      g += 16 * V;
    }
  }
#pragma GCC unroll 32
  for (int t = 0; t < T; ++t)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) _mm512_store_ps(sums + (t * V + v) * 16, acc[t][v]);
}

template <int KW, int V, bool P, int... I>
constexpr auto sum_pair_rows_table(std::integer_sequence<int, I...>) {
  return std::array<ChannelBlocksPairRows, sizeof...(I)>{sum_pair_rows<KW, I + 1, V, P>...};
}
template <int KW, int V, bool P>
constexpr auto kSumPairRows =
    sum_pair_rows_table<KW, V, P>(std::make_integer_sequence<int, max_rows(KW, V)>());

template <bool P>
ChannelBlocksPairRows pair_rows(int64_t kw, int v, size_t i) {
  if (kw == 3) return v == 2 ? kSumPairRows<3, 2, P>[i] : kSumPairRows<3, 1, P>[i];
  if (kw == 5) return v == 2 ? kSumPairRows<5, 2, P>[i] : kSumPairRows<5, 1, P>[i];
  return v == 2 ? kSumPairRows<7, 2, P>[i] : kSumPairRows<7, 1, P>[i];
}

}  // namespace

ChannelBlocksPairRows channel_blocks_bf16_pair_rows(int64_t kw, int v, int64_t r, bool phased) {
  const auto i = static_cast<size_t>(r - 1);
  return phased ? pair_rows<true>(kw, v, i) : pair_rows<false>(kw, v, i);
}

void channel_blocks_bf16_split_row(const uint16_t *in, int64_t w, int64_t pad, int64_t phase,
                                   uint16_t *out) {
  int64_t e = 0;
  if (pad % 2 != 0 && w > 0) out[phase + pad / 2] = in[0], e = 1;  // odd padded column
  // 32 values from an even padded column: their 16 even columns, then the odd.
  const __m512i split = _mm512_set_epi16(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1,
                                         30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  for (; e < w; e += 32) {
    const int64_t n = std::min<int64_t>(32, w - e), col = e + pad;
    const __mmask32 lanes = n == 32 ? ~__mmask32{0} : (__mmask32{1} << n) - 1;
    const __m512i v = _mm512_permutexvar_epi16(split, _mm512_maskz_loadu_epi16(lanes, in + e));
    _mm256_mask_storeu_epi16(out + col / 2, static_cast<__mmask16>((1u << ((n + 1) / 2)) - 1),
                             _mm512_castsi512_si256(v));
    _mm256_mask_storeu_epi16(out + phase + col / 2, static_cast<__mmask16>((1u << (n / 2)) - 1),
                             _mm512_extracti64x4_epi64(v, 1));
  }
}

void channel_blocks_bf16_pair_bias(const uint32_t *pair_major, int64_t pairs, int v, float *bias) {
  // bf16 1.0 in both halves: each lane's two gradients added into its sum.
  const __m512i ones = _mm512_set1_epi32(0x3f803f80);
  for (int h = 0; h < v; ++h) {
    __m512 sum = _mm512_load_ps(bias + 16 * h);
    for (int64_t q = 0; q < pairs; ++q)
      sum = _mm512_dpbf16_ps(sum, as_bh(_mm512_load_si512(pair_major + (q * v + h) * 16)),
                             as_bh(ones));
    _mm512_store_ps(bias + 16 * h, sum);
  }
}

}  // namespace dlk::cpu::kernels
