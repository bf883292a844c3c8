// The int8 NCHW im2col^T panel (the integer GEMM's A: output pixels as rows,
// taps in k-quads) in AVX-512 steps. For each quad of taps and each piece of
// at most 16 pixels (kernels/im2col_nchw_pieces.hpp), the 4 taps' bytes are
// masked loads from their input rows (stride 2: 32 bytes, their even bytes by
// vpmovwb), the padding lanes the zero point, then interleaved into 16 quads
// and stored in one masked store. The element loops of
// conv2d_im2col_packer.cpp, a byte at a time and then a quad at a time, took
// 4x the micro-kernel's time on ResNet-50's conv1 (7x7, stride 2, 3 channels).
// Compiled with -mavx512f -mavx512bw -mavx512vl.
#include <algorithm>

#include "backends/cpu_avx512/kernels/im2col_kernels.hpp"
#include "backends/cpu_avx512/kernels/im2col_nchw_pieces.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"

}  // namespace

bool im2col_nchw_u8_quads_avx512(const ConvShape &s, const uint8_t *src, int64_t p0, int64_t kc,
                                 int64_t j0, int64_t cols, int width, uint8_t flip, uint8_t pad,
                                 uint8_t *out) {
  const Im2colPanelReads reads(s, j0, cols);
  const int count = reads.count;
  if (count == 0) return false;
  const __m128i flips = _mm_set1_epi8(static_cast<char>(flip));
  const __m128i pads = _mm_set1_epi8(static_cast<char>(pad));
  for_each_tap_group<4>(s, src, p0, kc, [&](int64_t p, const uint8_t *const (&planes)[4],
                                            const int64_t (&position)[4]) {
    uint8_t *units = out + p * width;
    for (int i = 0; i < count; ++i) {
      __m128i x[4];
      for (int e = 0; e < 4; ++e) {
        if (!planes[e]) {
          x[e] = _mm_setzero_si128();
          continue;
        }
        const int64_t entry = position[e] * count + i;
        const Im2colReading &reading = reads.readings[entry];
        if (!reading.valid) {
          x[e] = pads;
          continue;
        }
        const uint8_t *in = planes[e] + reading.offset;
        const __m128i bytes =
            s.stride_w == 1
                ? _mm_maskz_loadu_epi8(static_cast<__mmask16>(reading.valid), in)
                : _mm256_cvtepi16_epi8(
                      _mm256_maskz_loadu_epi8(reads.even_of_32[entry], in));
        x[e] = _mm_mask_mov_epi8(pads, static_cast<__mmask16>(reading.valid),
                                 _mm_xor_si128(bytes, flips));
      }
      const __m128i lo01 = _mm_unpacklo_epi8(x[0], x[1]), hi01 = _mm_unpackhi_epi8(x[0], x[1]);
      const __m128i lo23 = _mm_unpacklo_epi8(x[2], x[3]), hi23 = _mm_unpackhi_epi8(x[2], x[3]);
      __m512i quads = _mm512_castsi128_si512(_mm_unpacklo_epi16(lo01, lo23));
      quads = _mm512_inserti32x4(quads, _mm_unpackhi_epi16(lo01, lo23), 1);
      quads = _mm512_inserti32x4(quads, _mm_unpacklo_epi16(hi01, hi23), 2);
      quads = _mm512_inserti32x4(quads, _mm_unpackhi_epi16(hi01, hi23), 3);
      const Im2colPiece &piece = reads.pieces[i];
      _mm512_mask_storeu_epi32(units + piece.t0 * 4, first_lanes(piece.n), quads);
    }
    for (int64_t t = cols; t < width; t += 16)
      _mm512_mask_storeu_epi32(units + t * 4, first_lanes(width - t), _mm512_setzero_si512());
  });
  return true;
}

}  // namespace dlk::cpu::kernels
