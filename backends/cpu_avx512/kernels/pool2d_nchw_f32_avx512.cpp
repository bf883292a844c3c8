// f32 NCHW pooling forward with AVX-512 intrinsics. The loops of pool2d_tier.inc
// leave NCHW rows to the compiler, which handles a stride-2 window with scalar
// gathers into stack arrays; here 16 outputs of a row are one register, a
// stride-2 tap comes from two loads and a vpermt2ps (the pair of loads also
// serves the next tap), any other stride from a gather, and the window's
// clipping at the image's edges becomes lane masks, so edges, tails and short
// rows take the same path as the interior. Output rows of up to 16 put 16 planes
// in the lanes instead, transposed in registers a band of rows at a time, and a
// plane whose output is 1 x 1 (global pooling) puts 16 planes in the lanes too.
//
// Every lane still visits its window's taps in row-major order, with the rules
// of pool2d_kernels.hpp: a tap replaces the maximum when it is larger or the
// first NaN; sums start at 0 and add the taps in that order, then divide once.
// The results are therefore bit-identical to the other tiers'.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "backends/cpu_avx512/kernels/pool2d_kernels.hpp"
#include "backends/cpu_avx512/kernels/transpose16_avx512.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"

// ceil(a / b) for b > 0 and any sign of a.
int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// The running maximum and its argmax in each lane. A lane starts at -inf with
// the index of its window's first tap, which keeps that index when every tap is
// -inf, as the first maximum. `nan` marks lanes whose maximum is a NaN: nothing
// replaces it. Keeping that mask apart (set from each taken value, off the
// chain) leaves one compare and one blend on the chain from tap to tap.
struct MaxLanes {
  explicit MaxLanes(__m512i first) : at(first) {}
  __m512 m = _mm512_set1_ps(-INFINITY);
  __m512i at;
  __mmask16 nan = 0;

  // The first tap of a window (or window row): lanes where it lies in the image
  // take it, the others stay at -inf.
  void start(__mmask16 valid, __m512 v) {
    m = _mm512_mask_mov_ps(m, valid, v);
    nan = static_cast<__mmask16>(_mm512_mask_cmp_ps_mask(valid, v, v, _CMP_UNORD_Q));
  }

  // v replaces m in `valid` lanes where m is a number and v is larger or NaN:
  // !(v <= m) is exactly "larger or NaN".
  void take(__mmask16 valid, __m512 v, __m512i index) {
    const __mmask16 t = _kandn_mask16(nan, _mm512_mask_cmp_ps_mask(valid, v, m, _CMP_NLE_UQ));
    m = _mm512_mask_mov_ps(m, t, v);
    at = _mm512_mask_mov_epi32(at, t, index);
    nan = _kor_mask16(nan, _mm512_mask_cmp_ps_mask(t, v, v, _CMP_UNORD_Q));
  }
  __m512 value() const { return m; }
  // A later row's maximum (all of its indices after this one's).
  void take(const MaxLanes &later) {
    const __mmask16 t = _kandn_mask16(nan, _mm512_cmp_ps_mask(later.m, m, _CMP_NLE_UQ));
    m = _mm512_mask_mov_ps(m, t, later.m);
    at = _mm512_mask_mov_epi32(at, t, later.at);
    nan = _kor_mask16(nan, _kand_mask16(t, later.nan));
  }
};

// The running maximum alone, when no argmax is asked for (inference): vmaxps
// keeps m unless v is larger, which is the first maximum when neither is a NaN
// (of +0 and -0, the first); a NaN is kept apart, the first one in each lane
// (the NaN mask's chain is a mask operation, not a compare of v with m), and is
// the maximum of the lanes that saw one. The same values as MaxLanes's, with
// shorter chains from tap to tap.
struct MaxValueLanes {
  explicit MaxValueLanes(__m512i) {}
  __m512 m = _mm512_set1_ps(-INFINITY);
  __m512 first_nan = _mm512_setzero_ps();
  __mmask16 nan = 0;

  void start(__mmask16 valid, __m512 v) { take(valid, v, _mm512_setzero_si512()); }
  void take(__mmask16 valid, __m512 v, __m512i) {
    m = _mm512_mask_max_ps(m, valid, v, m);
    const __mmask16 fresh = _kandn_mask16(nan, _mm512_mask_cmp_ps_mask(valid, v, v, _CMP_UNORD_Q));
    first_nan = _mm512_mask_mov_ps(first_nan, fresh, v);
    nan = _kor_mask16(nan, fresh);
  }
  void take(const MaxValueLanes &later) {
    m = _mm512_max_ps(later.m, m);
    const __mmask16 fresh = _kandn_mask16(nan, later.nan);
    first_nan = _mm512_mask_mov_ps(first_nan, fresh, later.first_nan);
    nan = _kor_mask16(nan, fresh);
  }
  __m512 value() const { return _mm512_mask_mov_ps(m, nan, first_nan); }
};

// Sums in row-major tap order, and the taps each lane summed.
struct SumLanes {
  __m512 sum = _mm512_setzero_ps();
  __m512 taps = _mm512_setzero_ps();

  void add(__mmask16 valid, __m512 v) {
    sum = _mm512_mask_add_ps(sum, valid, sum, v);
    taps = _mm512_mask_add_ps(taps, valid, taps, _mm512_set1_ps(1.0f));
  }
  __m512 mean(const dlk_pool2d_desc &d) const {
    const __m512 div = d.kind == DLK_POOL_AVG_INCLUDE_PADDING
                           ? _mm512_set1_ps(static_cast<float>(d.kh * d.kw))
                           : taps;
    return _mm512_div_ps(sum, div);
  }
};

struct Plane {
  explicit Plane(const core::Pool2dArgs &a) : d(a.desc), oh(a.oh), ow(a.ow) {}
  const dlk_pool2d_desc &d;
  int64_t oh, ow;
};

// Outputs ox0 .. ox0 + count of every row: lane e's tap kx reads column
// x = xs + kx + sw * e. What each tap's lanes may load depends on the columns
// only, so it is worked out once for all the rows (for each tap when kw is KW,
// fixed at compile time; on the fly otherwise).
template <int Stride, int KW>
struct Columns {
  // Filled in place (a copy of the vectors, written in pieces and read whole,
  // would stall store forwarding).
  void init(const dlk_pool2d_desc &desc, int64_t ox0, int64_t n) {
    d = &desc, sw = Stride ? Stride : desc.stride_w, kw = KW ? KW : desc.kw, count = n;
    xs = ox0 * sw - desc.pad_w, all = lane_range(0, n);
    lane_x = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                _mm512_set1_epi32(static_cast<int32_t>(sw)));
    for (int kx = 0; kx < KW; ++kx) {
      valid[kx] = compute_valid(kx);
      compute_load(kx, load_a[kx], load_b[kx]);
    }
    first_x = _mm512_max_epi32(_mm512_add_epi32(lane_x, _mm512_set1_epi32(static_cast<int32_t>(xs))),
                               _mm512_setzero_si512());
  }

  // Lanes whose tap kx lies inside the image's columns.
  __mmask16 valid_lanes(int64_t kx) const { return KW ? valid[kx] : compute_valid(kx); }
  // Stride 2: the elements xs + kx .. + 2 * count of a row inside it, as the
  // masks of two loads of 16; the even ones are tap kx's, the odd ones tap
  // kx + 1's (the last element only when there is such a tap).
  void load_masks(int64_t kx, __mmask16 &a, __mmask16 &b) const {
    if (KW) a = load_a[kx], b = load_b[kx];
    else compute_load(kx, a, b);
  }

  // No initializers: an array of these is made for every plane, then filled.
  const dlk_pool2d_desc *d;
  int64_t sw, kw, count, xs;
  __mmask16 all;
  __m512i lane_x;   // sw * e
  __m512i first_x;  // each lane's first column inside the image
  __mmask16 valid[KW ? KW : 1], load_a[KW ? KW : 1], load_b[KW ? KW : 1];

 private:
  __mmask16 compute_valid(int64_t kx) const {
    const int64_t x0 = xs + kx;
    return lane_range(ceil_div(-x0, sw), std::min(count, ceil_div(d->w - x0, sw)));
  }
  void compute_load(int64_t kx, __mmask16 &a, __mmask16 &b) const {
    const int64_t x0 = xs + kx;
    const int64_t lo = std::max<int64_t>(0, -x0);
    const int64_t hi = std::min(2 * count - (kx + 1 < kw ? 0 : 1), d->w - x0);
    a = lane_range(lo, hi), b = lane_range(lo - 16, hi - 16);
  }
};

// For every row y of output row oy's windows (rows [y0, y1) of the image), in
// order, calls row(y), then tap(valid, values, index) for each tap of that row,
// left to right: `valid` are the lanes whose tap lies in the image, `index` its
// y * w + x. A stride other than 1 or 2 gathers.
template <int Stride, int KW, class Row, class Tap>
void row_taps(const Columns<Stride, KW> &c, const float *src, int64_t y0, int64_t y1, Row &&row_start,
              Tap &&tap) {
  const dlk_pool2d_desc &d = *c.d;
  const auto index = [&](int64_t y, int64_t x0) {
    return _mm512_add_epi32(c.lane_x, _mm512_set1_epi32(static_cast<int32_t>(y * d.w + x0)));
  };
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  for (int64_t y = y0; y < y1; ++y) {
    row_start(y);
    const float *row = src + y * d.w;
    for (int64_t kx = 0; kx < c.kw; ++kx) {
      const int64_t x0 = c.xs + kx;
      const __mmask16 valid = c.valid_lanes(kx);
      if (Stride == 1) {
        tap(valid, _mm512_maskz_loadu_ps(valid, row + x0), index(y, x0));
      } else if (Stride == 2) {
        __mmask16 first, second;
        c.load_masks(kx, first, second);
        const __m512 a = _mm512_maskz_loadu_ps(first, row + x0);
        const __m512 b = _mm512_maskz_loadu_ps(second, row + x0 + 16);
        tap(valid, _mm512_permutex2var_ps(a, even, b), index(y, x0));
        if (kx + 1 == c.kw) break;
        ++kx;
        tap(c.valid_lanes(kx), _mm512_permutex2var_ps(a, odd, b), index(y, x0 + 1));
      } else {
        tap(valid, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), valid, c.lane_x, row + x0, 4),
            index(y, x0));
      }
    }
  }
}

// Max pooling takes each window row's taps in a chain of its own, then the rows
// in order: the first maximum of the rows' first maxima is the window's, and
// the rows' chains overlap.
// The maximum of one window row of a chunk, kept for the next output row when
// their windows share that row (kh = stride_h + 1: 3x3/2).
template <class Lanes>
struct RowMax {
  int64_t y = -1;
  Lanes max{_mm512_setzero_si512()};
};

// Lanes: MaxLanes with an argmax, MaxValueLanes without.
template <int Stride, int KW, class Lanes>
void max_chunk(const Columns<Stride, KW> &c, const float *src, int64_t y0, int64_t y1, float *dst,
               int32_t *argmax, RowMax<Lanes> &kept) {
  const int64_t w = c.d->w;
  const auto first = [&](int64_t y) {
    return _mm512_add_epi32(c.first_x, _mm512_set1_epi32(static_cast<int32_t>(y * w)));
  };
  const bool reuse = kept.y == y0;
  const int64_t from = reuse ? y0 + 1 : y0;
  Lanes window = reuse ? kept.max : Lanes(first(y0)), row(first(from));
  bool row_empty = true;
  row_taps(
      c, src, from, y1,
      [&](int64_t y) {
        if (y > from) {
          if (y > y0 + 1) window.take(row);
          else window = row;
        }
        row = Lanes(first(y));
        row_empty = true;
      },
      [&](__mmask16 valid, __m512 v, __m512i index) {
        if (row_empty) row.start(valid, v);
        else row.take(valid, v, index);
        row_empty = false;
      });
  if (from < y1) {
    if (y1 - 1 > y0) window.take(row);
    else window = row;
    kept.y = y1 - 1, kept.max = row;
  }
  _mm512_mask_storeu_ps(dst, c.all, window.value());
  if constexpr (std::is_same<Lanes, MaxLanes>::value) _mm512_mask_storeu_epi32(argmax, c.all, window.at);
  else (void)argmax;
}

template <int Stride, int KW>
void avg_chunk(const Columns<Stride, KW> &c, const float *src, int64_t y0, int64_t y1, float *dst) {
  SumLanes acc;
  row_taps(c, src, y0, y1, [](int64_t) {}, [&](__mmask16 valid, __m512 v, __m512i) { acc.add(valid, v); });
  _mm512_mask_storeu_ps(dst, c.all, acc.mean(*c.d));
}

// Up to kGroup column chunks at a time, rows in order within them: the image is
// read row after row (in full for rows of up to 128 outputs), and each chunk's
// masks serve every row.
constexpr int64_t kGroup = 8;

template <int Stride, int KW>
void plane_rows(const Plane &p, const float *src, float *dst, int32_t *argmax) {
  const dlk_pool2d_desc &d = p.d;
  Columns<Stride, KW> group[kGroup];
  for (int64_t g0 = 0; g0 < p.ow; g0 += kGroup * kLanes) {
    int64_t chunks = 0;
    RowMax<MaxLanes> kept[kGroup];
    RowMax<MaxValueLanes> kept_values[kGroup];
    for (int64_t ox0 = g0; ox0 < std::min(p.ow, g0 + kGroup * kLanes); ox0 += kLanes)
      group[chunks++].init(d, ox0, std::min(kLanes, p.ow - ox0));
    for (int64_t oy = 0; oy < p.oh; ++oy) {
      const int64_t y = oy * d.stride_h - d.pad_h;
      const int64_t y0 = std::max<int64_t>(y, 0), y1 = std::min(y + d.kh, d.h);
      for (int64_t i = 0; i < chunks; ++i) {
        const Columns<Stride, KW> &c = group[i];
        const int64_t o = oy * p.ow + g0 + i * kLanes;
        if (d.kind != DLK_POOL_MAX) avg_chunk(c, src, y0, y1, dst + o);
        else if (argmax) max_chunk(c, src, y0, y1, dst + o, argmax + o, kept[i]);
        else max_chunk(c, src, y0, y1, dst + o, nullptr, kept_values[i]);
      }
    }
  }
}

// The common windows (2 x 2 and 3 x 3, strides 1 and 2) with their loops unrolled.
template <int Stride>
void plane_rows_any(const Plane &p, const float *src, float *dst, int32_t *argmax) {
  if (Stride != 0 && p.d.kw == 2) return plane_rows<Stride, 2>(p, src, dst, argmax);
  if (Stride != 0 && p.d.kw == 3) return plane_rows<Stride, 3>(p, src, dst, argmax);
  plane_rows<Stride, 0>(p, src, dst, argmax);
}

// Output 1 x 1: planes p0 .. p0 + count in the lanes. A window of whole rows is
// one contiguous run of each plane, read 16 taps of 16 planes at a time and
// transposed; any other window gathers each tap from the planes.
void planes_global(const Plane &p, const float *src, int64_t count, float *dst, int32_t *argmax) {
  const dlk_pool2d_desc &d = p.d;
  const int64_t plane = d.h * d.w;
  const __mmask16 lanes = lane_range(0, count);
  const int64_t y0 = std::max<int64_t>(-d.pad_h, 0), y1 = std::min(d.kh - d.pad_h, d.h);
  const int64_t x0 = std::max<int64_t>(-d.pad_w, 0), x1 = std::min(d.kw - d.pad_w, d.w);
  MaxLanes max_acc(_mm512_set1_epi32(static_cast<int32_t>(y0 * d.w + x0)));
  SumLanes sum_acc;
  const bool max = d.kind == DLK_POOL_MAX;
  bool first = true;
  const auto tap = [&](__m512 v, int64_t index) {
    if (!max) sum_acc.add(lanes, v);
    else if (first) max_acc.start(lanes, v);
    else max_acc.take(lanes, v, _mm512_set1_epi32(static_cast<int32_t>(index)));
    first = false;
  };
  if (x0 == 0 && x1 == d.w) {
    const int64_t begin = y0 * d.w, end = y1 * d.w;
    __m512 r[16];
    for (int64_t i = begin; i < end; i += 16) {
      const __mmask16 taps = lane_range(0, end - i);
      for (int64_t k = 0; k < 16; ++k)
        r[k] = k < count ? _mm512_maskz_loadu_ps(taps, src + k * plane + i) : _mm512_setzero_ps();
      transpose16(r);
      for (int64_t j = 0; j < std::min<int64_t>(16, end - i); ++j) tap(r[j], i + j);
    }
  } else {
    const __m512i offsets = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32(static_cast<int32_t>(plane)));
    for (int64_t y = y0; y < y1; ++y)
      for (int64_t x = x0; x < x1; ++x)
        tap(_mm512_mask_i32gather_ps(_mm512_setzero_ps(), lanes, offsets, src + y * d.w + x, 4), y * d.w + x);
  }
  _mm512_mask_storeu_ps(dst, lanes, max ? max_acc.m : sum_acc.mean(d));
  if (max && argmax) _mm512_mask_storeu_epi32(argmax, lanes, max_acc.at);
}

// Small planes (VGG-16's pool4 and pool5) put 16 planes in the lanes, as the
// blocked layouts do: a band of rows of 16 planes is transposed in registers
// into a buffer of pixels x 16 lanes, each output of the band's output rows then
// visits its window's taps one vector each, and the outputs are transposed back.
// The window is the same in every lane, so its clipping is scalar loop bounds
// instead of masks, and each output is a chain of its own (a plane's outputs no
// longer wait on one another's masks and permutations). The band holds as many
// output rows as fit, with their input rows, dst and argmax, in 32 KiB (L1d on
// Zen 4 and most x86 cores).
constexpr int64_t kTransposedPixels = 32 * 1024 / (16 * sizeof(float));

// Output rows a band holds (0: not even one fits).
int64_t band_rows(const Plane &p) {
  const dlk_pool2d_desc &d = p.d;
  const auto pixels = [&](int64_t rows) {
    return std::min(d.h, (rows - 1) * d.stride_h + d.kh) * d.w + 2 * rows * p.ow;
  };
  int64_t rows = 0;
  while (rows < p.oh && pixels(rows + 1) <= kTransposedPixels) ++rows;
  return rows;
}

// Output rows of up to 16 (VGG-16's pool4 and pool5), whose rows leave lanes idle
// in a register (thread CPU time, 1 thread, Zen 4, against the rows' path: pool4,
// 512 x 28x28 2x2/2, 1.05x with argmax, 1.13x without). On wider outputs the
// transposes cost more than they save (pool3's 56x56: 0.85x, ResNet-50's 3x3/2
// on 112x112: 0.66x).
bool transposed_planes_apply(const Plane &p) { return p.ow <= kLanes && band_rows(p) > 0; }

// Elements 0 .. size of `count` rows `stride` apart into `to`, a pixel of 16
// lanes after another (lanes past count: 0).
void transpose_in(const float *from, int64_t stride, int64_t count, int64_t size, float *to) {
  __m512 r[16];
  for (int64_t i = 0; i < size; i += 16) {
    const __mmask16 elements = lane_range(0, size - i);
    for (int64_t k = 0; k < 16; ++k)
      r[k] = k < count ? _mm512_maskz_loadu_ps(elements, from + k * stride + i) : _mm512_setzero_ps();
    transpose16(r);
    for (int64_t j = 0; j < std::min<int64_t>(16, size - i); ++j) _mm512_store_ps(to + (i + j) * 16, r[j]);
  }
}

// The inverse: pixels 0 .. size of `from` into `count` rows `stride` apart.
void transpose_out(const float *from, int64_t size, int64_t count, int64_t stride, float *to) {
  __m512 r[16];
  for (int64_t i = 0; i < size; i += 16) {
    const __mmask16 elements = lane_range(0, size - i);
    for (int64_t j = 0; j < 16; ++j)
      r[j] = j < size - i ? _mm512_load_ps(from + (i + j) * 16) : _mm512_setzero_ps();
    transpose16(r);
    for (int64_t k = 0; k < count; ++k) _mm512_mask_storeu_ps(to + k * stride + i, elements, r[k]);
  }
}

// Planes p0 .. p0 + count (count <= 16), a band of output rows at a time.
template <class Lanes>
void transposed_planes(const Plane &p, const float *src, int64_t count, float *dst, int32_t *argmax) {
  const dlk_pool2d_desc &d = p.d;
  const int64_t plane = d.h * d.w, out_plane = p.oh * p.ow, band = band_rows(p);
  alignas(64) float buffer[kTransposedPixels * 16];
  const bool max = d.kind == DLK_POOL_MAX;
  const __mmask16 all = 0xffff;
  for (int64_t oy0 = 0; oy0 < p.oh; oy0 += band) {
    const int64_t oy1 = std::min(p.oh, oy0 + band);
    // Input rows [r0, r1) of the band's windows, in the buffer from `in` on.
    const int64_t r0 = std::max<int64_t>(0, oy0 * d.stride_h - d.pad_h);
    const int64_t r1 = std::min(d.h, (oy1 - 1) * d.stride_h - d.pad_h + d.kh);
    const int64_t outputs = (oy1 - oy0) * p.ow;
    float *in = buffer, *out = buffer + (r1 - r0) * d.w * 16;
    int32_t *at = reinterpret_cast<int32_t *>(out + outputs * 16);
    transpose_in(src + r0 * d.w, plane, count, (r1 - r0) * d.w, in);
    const auto pixel = [&](int64_t ty, int64_t tx) { return in + ((ty - r0) * d.w + tx) * 16; };
    for (int64_t oy = oy0; oy < oy1; ++oy) {
      const int64_t y = oy * d.stride_h - d.pad_h;
      const int64_t y0 = std::max<int64_t>(y, 0), y1 = std::min(y + d.kh, d.h);
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        const int64_t x = ox * d.stride_w - d.pad_w;
        const int64_t x0 = std::max<int64_t>(x, 0), x1 = std::min(x + d.kw, d.w);
        const int64_t o = (oy - oy0) * p.ow + ox;
        if (!max) {
          SumLanes sum;
          for (int64_t ty = y0; ty < y1; ++ty)
            for (int64_t tx = x0; tx < x1; ++tx) sum.add(all, _mm512_load_ps(pixel(ty, tx)));
          _mm512_store_ps(out + o * 16, sum.mean(d));
          continue;
        }
        Lanes m(_mm512_set1_epi32(static_cast<int32_t>(y0 * d.w + x0)));
        m.start(all, _mm512_load_ps(pixel(y0, x0)));
        for (int64_t ty = y0; ty < y1; ++ty)
          for (int64_t tx = ty == y0 ? x0 + 1 : x0; tx < x1; ++tx)
            m.take(all, _mm512_load_ps(pixel(ty, tx)), _mm512_set1_epi32(static_cast<int32_t>(ty * d.w + tx)));
        _mm512_store_ps(out + o * 16, m.value());
        if constexpr (std::is_same<Lanes, MaxLanes>::value) _mm512_store_si512(at + o * 16, m.at);
      }
    }
    transpose_out(out, outputs, count, out_plane, dst + oy0 * p.ow);
    if constexpr (std::is_same<Lanes, MaxLanes>::value)
      if (argmax)
        transpose_out(out + outputs * 16, outputs, count, out_plane, reinterpret_cast<float *>(argmax + oy0 * p.ow));
  }
}

}  // namespace

void pool2d_forward_nchw_f32_avx512(const core::Pool2dArgs &a, int threads) {
  const Plane p(a);
  const float *src = static_cast<const float *>(a.src);
  float *dst = static_cast<float *>(a.dst);
  const int64_t planes = p.d.n * p.d.c, plane = p.d.h * p.d.w, out_plane = p.oh * p.ow;
  // The gathers' int32 offsets reach 15 planes on.
  if (out_plane == 1 && plane * kLanes <= INT32_MAX) {
    parallel_for((planes + kLanes - 1) / kLanes, threads, [&](int64_t block, int) {
      const int64_t p0 = block * kLanes;
      planes_global(p, src + p0 * plane, std::min(kLanes, planes - p0), dst + p0,
                    a.argmax ? a.argmax + p0 : nullptr);
    });
    return;
  }
  if (transposed_planes_apply(p)) {
    parallel_for((planes + kLanes - 1) / kLanes, threads, [&](int64_t block, int) {
      const int64_t p0 = block * kLanes, count = std::min(kLanes, planes - p0);
      if (a.argmax)
        transposed_planes<MaxLanes>(p, src + p0 * plane, count, dst + p0 * out_plane, a.argmax + p0 * out_plane);
      else transposed_planes<MaxValueLanes>(p, src + p0 * plane, count, dst + p0 * out_plane, nullptr);
    });
    return;
  }
  parallel_for(planes, threads, [&](int64_t i, int) {
    const float *in = src + i * plane;
    float *out = dst + i * out_plane;
    int32_t *am = a.argmax ? a.argmax + i * out_plane : nullptr;
    switch (p.d.stride_w) {
      case 1: return plane_rows_any<1>(p, in, out, am);
      case 2: return plane_rows_any<2>(p, in, out, am);
      default: return plane_rows_any<0>(p, in, out, am);
    }
  });
}

}  // namespace dlk::cpu::kernels
