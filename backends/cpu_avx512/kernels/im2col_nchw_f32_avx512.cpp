// The f32 NCHW im2col panel in AVX-512 steps. Each piece of a tap's row
// (kernels/im2col_nchw_pieces.hpp) is one masked load from the tap's input row
// (stride 2: the even lanes of two, put together by vpermt2ps) and one masked
// store, the lanes in the padding masked off and left zero (3-4 stretches of
// 14 pixels per row of a 32-pixel panel on res4a, 14 x 14 outputs, were most
// of the element loops' time). bf16 src is widened as it is loaded, for the f32
// GEMM that bf16 runs where vdpbf16ps is slower than the FMAs.
#include <algorithm>

#include "backends/cpu_avx512/kernels/im2col_kernels.hpp"
#include "backends/cpu_avx512/kernels/im2col_nchw_pieces.hpp"
#include "common/immintrin.hpp"

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

inline __m512 load_lanes(__mmask16 lanes, const float *in) {
  return _mm512_maskz_loadu_ps(lanes, in);
}
inline __m512 load_lanes(__mmask16 lanes, const uint16_t *in) {
  return _mm512_castsi512_ps(
      _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(lanes, in)), 16));
}

template <class Elem>
bool im2col_nchw_as_f32(const ConvShape &s, const Elem *src, int64_t p0, int64_t kc, int64_t j0,
                        int64_t cols, int width, float *out) {
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
  const Elem *plane = src + p0 / positions * plane_size;
  int64_t d = p0 % positions;
  for (int64_t p = 0; p < kc; ++p) {
    float *row = out + p * width;
    const Im2colReading *reading = readings + d * count;
    for (int i = 0; i < count; ++i, ++reading) {
      __m512 v = _mm512_setzero_ps();
      if (reading->valid) {
        const Elem *in = plane + reading->offset;
        if (s.stride_w == 1) {
          v = load_lanes(static_cast<__mmask16>(reading->valid), in);
        } else {
          const StrideTwoLoads &load = loads[d * count + i];
          const __m512 first = load_lanes(load.first, in);
          const __m512 second = load_lanes(load.second, in + 16);
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

}  // namespace

bool im2col_nchw_f32_avx512(const ConvShape &s, const float *src, int64_t p0, int64_t kc,
                            int64_t j0, int64_t cols, int width, float *out) {
  return im2col_nchw_as_f32(s, src, p0, kc, j0, cols, width, out);
}

bool im2col_nchw_bf16_as_f32_avx512(const ConvShape &s, const uint16_t *src, int64_t p0,
                                    int64_t kc, int64_t j0, int64_t cols, int width, float *out) {
  return im2col_nchw_as_f32(s, src, p0, kc, j0, cols, width, out);
}

}  // namespace dlk::cpu::kernels
