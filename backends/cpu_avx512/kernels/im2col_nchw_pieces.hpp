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

}  // namespace dlk::cpu::kernels
