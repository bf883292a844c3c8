// The f32 NCHW im2col panel in AVX-512 steps. Each piece of a tap's row
// (kernels/im2col_nchw_pieces.hpp) is one masked load from the tap's input row
// (stride 2: the even lanes of two, put together by vpermt2ps) and one masked
// store, the lanes in the padding masked off and left zero (3-4 stretches of
// 14 pixels per row of a 32-pixel panel on res4a, 14 x 14 outputs, were most
// of the element loops' time).
#include <immintrin.h>

#include <algorithm>

#include "backends/cpu_avx512/kernels/im2col_kernels.hpp"
#include "backends/cpu_avx512/kernels/im2col_nchw_pieces.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"

// Even lanes 2l of 16 for the lanes l of `valid` in [first, first + 8).
inline __mmask16 spread(uint32_t valid, int first) {
  unsigned m = 0;
  for (int l = 0; l < 8; ++l)
    if (valid >> (first + l) & 1) m |= 1u << (2 * l);
  return static_cast<__mmask16>(m);
}

// The loads of a reading at stride 2: 16 floats from its offset and 16 on.
struct StrideTwoLoads {
  __mmask16 first, second;
};

}  // namespace

bool im2col_nchw_f32_avx512(const ConvShape &s, const float *src, int64_t p0, int64_t kc,
                            int64_t j0, int64_t cols, int width, float *out) {
  if (s.stride_w > 2) return false;
  Im2colPiece pieces[kIm2colMaxPieces];
  Im2colReading readings[kIm2colMaxEntries];
  const int count = im2col_nchw_readings(s, j0, cols, pieces, readings);
  if (count == 0) return false;
  const int64_t positions = s.kh * s.kw;
  StrideTwoLoads loads[kIm2colMaxEntries];
  if (s.stride_w == 2)
    for (int64_t e = 0; e < positions * count; ++e)
      loads[e] = {spread(readings[e].valid, 0), spread(readings[e].valid, 8)};
  const __m512i evens = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const int64_t plane_size = s.h * s.w;
  const float *plane = src + p0 / positions * plane_size;
  int64_t d = p0 % positions;
  for (int64_t p = 0; p < kc; ++p) {
    float *row = out + p * width;
    const Im2colReading *reading = readings + d * count;
    for (int i = 0; i < count; ++i, ++reading) {
      __m512 v = _mm512_setzero_ps();
      if (reading->valid) {
        const float *in = plane + reading->offset;
        if (s.stride_w == 1) {
          v = _mm512_maskz_loadu_ps(static_cast<__mmask16>(reading->valid), in);
        } else {
          const StrideTwoLoads &load = loads[d * count + i];
          const __m512 first = _mm512_maskz_loadu_ps(load.first, in);
          const __m512 second = _mm512_maskz_loadu_ps(load.second, in + 16);
          v = _mm512_permutex2var_ps(first, evens, second);
        }
      }
      _mm512_mask_storeu_ps(row + pieces[i].t0, first_lanes(pieces[i].n), v);
    }
    for (int64_t t = cols; t < width; t += 16)
      _mm512_mask_storeu_ps(row + t, first_lanes(width - t), _mm512_setzero_ps());
    if (++d == positions) d = 0, plane += plane_size;
  }
  return true;
}

}  // namespace dlk::cpu::kernels
