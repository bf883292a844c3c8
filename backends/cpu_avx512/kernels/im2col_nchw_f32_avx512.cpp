// The f32 NCHW im2col panel in AVX-512 steps. A panel's pixels lie on a few
// output rows; cut into pieces of at most 16 pixels on one output row, each
// piece of a tap's row is one masked load from the tap's input row (stride 2:
// the even lanes of two, put together by vpermt2ps) and one masked store, the
// lanes in the padding masked off and left zero. What a piece reads for each
// of the kernel's kh x kw positions (its offset in the plane and its masks)
// is worked out once per panel, so a tap's row costs a few instructions per
// piece: the element loops this replaces (conv2d_im2col_packer.cpp, kept for
// the other tiers and shapes) worked out each stretch's clipping for every tap
// and were most of the packer's time (3-4 stretches of 14 pixels per row of a
// 32-pixel panel on res4a, 14 x 14 outputs).
#include <immintrin.h>

#include <algorithm>

#include "backends/cpu_avx512/kernels/im2col_kernels.hpp"

namespace dlk::cpu::kernels {
namespace {

// Lanes [lo, hi) of 16, for any lo and hi.
inline __mmask16 lanes(int64_t lo, int64_t hi) {
  lo = std::clamp<int64_t>(lo, 0, 16), hi = std::clamp<int64_t>(hi, 0, 16);
  return static_cast<__mmask16>(((1u << hi) - 1) & ~((1u << lo) - 1));
}

// Even lanes 2l of 16 for the lanes l of `valid` in [first, first + 8).
inline __mmask16 spread(__mmask16 valid, int first) {
  unsigned m = 0;
  for (int l = 0; l < 8; ++l)
    if (valid >> (first + l) & 1) m |= 1u << (2 * l);
  return static_cast<__mmask16>(m);
}

constexpr int kMaxPieces = 72;     // 64 pixels on up to 64 output rows, in pieces of 16
constexpr int kMaxEntries = 1024;  // kernel positions x pieces worked out per panel

struct Piece {
  int64_t t0, n, iy0, ix0;  // columns [t0, t0 + n) read input row iy0 + dy, columns ix0 + dx on
};
// A piece at one kernel position: lanes `valid` read plane + offset + lane *
// stride (stride 2: loads masked by load0 and load1 from plane + offset and 16
// floats on).
struct Reading {
  int64_t offset;
  __mmask16 valid, load0, load1;
};

}  // namespace

bool im2col_nchw_f32_avx512(const ConvShape &s, const float *src, int64_t p0, int64_t kc,
                            int64_t j0, int64_t cols, int width, float *out) {
  if (s.stride_w > 2) return false;
  Piece pieces[kMaxPieces];
  int count = 0;
  for (int64_t t = 0; t < cols; ++count) {
    const int64_t oy = (j0 + t) / s.ow, ox = (j0 + t) % s.ow;
    const int64_t n = std::min({cols - t, s.ow - ox, int64_t{16}});
    pieces[count] = {t, n, oy * s.stride_h - s.pad_h, ox * s.stride_w - s.pad_w};
    t += n;
  }
  const int64_t positions = s.kh * s.kw;
  if (positions * count > kMaxEntries) return false;
  Reading readings[kMaxEntries];
  for (int64_t d = 0; d < positions; ++d) {
    const int64_t dy = d / s.kw * s.dilation_h, dx = d % s.kw * s.dilation_w;
    for (int i = 0; i < count; ++i) {
      const Piece &piece = pieces[i];
      Reading &reading = readings[d * count + i];
      reading = {0, 0, 0, 0};
      const int64_t iy = piece.iy0 + dy, ix = piece.ix0 + dx;
      if (iy < 0 || iy >= s.h) continue;
      int64_t lo, hi;
      inside(ix, piece.n, s.stride_w, s.w, lo, hi);
      if (lo == hi) continue;
      reading.offset = iy * s.w + ix;
      reading.valid = lanes(lo, hi);
      reading.load0 = s.stride_w == 1 ? reading.valid : spread(reading.valid, 0);
      reading.load1 = spread(reading.valid, 8);
    }
  }
  const __m512i evens = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const int64_t plane_size = s.h * s.w;
  const float *plane = src + p0 / positions * plane_size;
  int64_t d = p0 % positions;
  for (int64_t p = 0; p < kc; ++p) {
    float *row = out + p * width;
    const Reading *reading = readings + d * count;
    for (int i = 0; i < count; ++i, ++reading) {
      __m512 v = _mm512_setzero_ps();
      if (reading->valid) {
        const float *in = plane + reading->offset;
        if (s.stride_w == 1) {
          v = _mm512_maskz_loadu_ps(reading->valid, in);
        } else {
          const __m512 first = _mm512_maskz_loadu_ps(reading->load0, in);
          const __m512 second = _mm512_maskz_loadu_ps(reading->load1, in + 16);
          v = _mm512_permutex2var_ps(first, evens, second);
        }
      }
      _mm512_mask_storeu_ps(row + pieces[i].t0, lanes(0, pieces[i].n), v);
    }
    for (int64_t t = cols; t < width; t += 16)
      _mm512_mask_storeu_ps(row + t, lanes(0, width - t), _mm512_setzero_ps());
    if (++d == positions) d = 0, plane += plane_size;
  }
  return true;
}

}  // namespace dlk::cpu::kernels
