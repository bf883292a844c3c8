// What an NCHW im2col panel reads, worked out once per panel for the vector
// im2col kernels (kernels/im2col_nchw_*_avx512.cpp): the panel's output pixels
// cut into pieces of at most 16 on one output row, and for each of the
// kernel's kh x kw positions where each piece reads its input row. A tap's row
// of the panel then costs a few instructions per piece; the element loops of
// conv2d_im2col_packer.cpp worked out each stretch's clipping for every tap.
#pragma once

#include <algorithm>
#include <cstdint>

#include "backends/cpu_avx512/conv2d_lowering.hpp"

namespace dlk::cpu::kernels {

constexpr int kIm2colMaxPieces = 72;     // 64 pixels on up to 64 output rows, in pieces of 16
constexpr int kIm2colMaxEntries = 1024;  // kernel positions x pieces worked out per panel

// Columns [t0, t0 + n) of the panel: output row pixels reading input row iy0 +
// dy, input columns ix0 + dx + lane x stride_w, at kernel offset (dy, dx).
struct Im2colPiece {
  int64_t t0, n, iy0, ix0;
};
// A piece at one kernel position: lanes l in `valid` (bit l) read plane[offset
// + l x stride_w]; the others are padding.
struct Im2colReading {
  int64_t offset;
  uint32_t valid;
};

// Pieces of pixels [j0, j0 + cols) and their readings (entry d x count + i:
// kernel position d, piece i); returns the count of pieces, or 0 where the
// panel has more entries than kIm2colMaxEntries.
inline int im2col_nchw_readings(const ConvShape &s, int64_t j0, int64_t cols,
                                Im2colPiece (&pieces)[kIm2colMaxPieces],
                                Im2colReading (&readings)[kIm2colMaxEntries]) {
  int count = 0;
  for (int64_t t = 0; t < cols; ++count) {
    const int64_t oy = (j0 + t) / s.ow, ox = (j0 + t) % s.ow;
    const int64_t n = std::min({cols - t, s.ow - ox, int64_t{16}});
    pieces[count] = {t, n, oy * s.stride_h - s.pad_h, ox * s.stride_w - s.pad_w};
    t += n;
  }
  const int64_t positions = s.kh * s.kw;
  if (positions * count > kIm2colMaxEntries) return 0;
  for (int64_t d = 0; d < positions; ++d) {
    const int64_t dy = d / s.kw * s.dilation_h, dx = d % s.kw * s.dilation_w;
    for (int i = 0; i < count; ++i) {
      const Im2colPiece &piece = pieces[i];
      Im2colReading &reading = readings[d * count + i];
      reading = {0, 0};
      const int64_t iy = piece.iy0 + dy, ix = piece.ix0 + dx;
      if (iy < 0 || iy >= s.h) continue;
      int64_t lo, hi;
      inside(ix, piece.n, s.stride_w, s.w, lo, hi);
      if (lo == hi) continue;
      reading.offset = iy * s.w + ix;
      reading.valid = ((1u << hi) - 1) & ~((1u << lo) - 1);
    }
  }
  return count;
}

// What the k-pair and k-quad kernels read for a panel of pixels [j0, j0 +
// cols): its pieces and readings, and at stride 2 each reading's mask of the
// even elements of 32 (bit 2 l for lane l, a masked load of 32 bytes or bf16
// values); count 0 where the kernels do not take the panel (a stride past 2,
// more entries than kIm2colMaxEntries).
struct Im2colPanelReads {
  Im2colPiece pieces[kIm2colMaxPieces];
  Im2colReading readings[kIm2colMaxEntries];
  uint32_t even_of_32[kIm2colMaxEntries];
  int count = 0;

  Im2colPanelReads(const ConvShape &s, int64_t j0, int64_t cols) {
    if (s.stride_w > 2) return;
    count = im2col_nchw_readings(s, j0, cols, pieces, readings);
    if (s.stride_w != 2) return;
    for (int64_t e = 0; e < s.kh * s.kw * count; ++e) {
      uint32_t m = 0;
      for (int l = 0; l < 16; ++l)
        if (readings[e].valid >> l & 1) m |= 1u << (2 * l);
      even_of_32[e] = m;
    }
  }
};

// The taps [p0, p0 + kc) of an NCHW src (its group's first channel) in groups
// of G along k, as a panel's k-pairs (G = 2) or k-quads (G = 4) hold them:
// f(p, planes, positions) for each group's first tap p, with each of its G
// taps' channel plane (null past kc: zeros) and kernel position (d of
// im2col_nchw_readings's entries).
template <int G, class T, class F>
void for_each_tap_group(const ConvShape &s, const T *src, int64_t p0, int64_t kc, const F &f) {
  const int64_t positions = s.kh * s.kw, plane_size = s.h * s.w;
  const T *plane = src + p0 / positions * plane_size;
  int64_t d = p0 % positions;
  for (int64_t p = 0; p < kc; p += G) {
    const T *planes[G];
    int64_t position[G];
    for (int e = 0; e < G; ++e) {
      planes[e] = p + e < kc ? plane : nullptr;
      position[e] = d;
      if (++d == positions) d = 0, plane += plane_size;
    }
    f(p, planes, position);
  }
}

}  // namespace dlk::cpu::kernels
