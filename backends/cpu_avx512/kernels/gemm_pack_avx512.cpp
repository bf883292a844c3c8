// Compiled with -mavx512f -mavx512bw -mavx512vl only; gemm_kernels.cpp gives
// these to the avx512 tier, which requires those bits. Every load and store is
// masked to the matrix and the panel, so edges need no scalar path.
#include <algorithm>

#include "backends/cpu_avx512/kernels/gemm_pack_kernels.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"


// Transposes 16 x 16 32-bit units in place: r[i] lane e becomes r[e] lane i.
void transpose16(__m512i (&r)[16]) {
  __m512i t[16], s[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  // s[4i + j], 128-bit lane l: unit 4l + j of rows 4i .. 4i + 3.
  for (int i = 0; i < 4; ++i) {
    s[4 * i + 0] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    s[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    s[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    s[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  for (int j = 0; j < 4; ++j) {
    const __m512i even_lo = _mm512_shuffle_i32x4(s[j], s[4 + j], 0x88);
    const __m512i odd_lo = _mm512_shuffle_i32x4(s[j], s[4 + j], 0xDD);
    const __m512i even_hi = _mm512_shuffle_i32x4(s[8 + j], s[12 + j], 0x88);
    const __m512i odd_hi = _mm512_shuffle_i32x4(s[8 + j], s[12 + j], 0xDD);
    r[j] = _mm512_shuffle_i32x4(even_lo, even_hi, 0x88);
    r[8 + j] = _mm512_shuffle_i32x4(even_lo, even_hi, 0xDD);
    r[4 + j] = _mm512_shuffle_i32x4(odd_lo, odd_hi, 0x88);
    r[12 + j] = _mm512_shuffle_i32x4(odd_lo, odd_hi, 0xDD);
  }
}

}  // namespace

void pack_k_contiguous_avx512(const uint8_t *src, int64_t stride, int rows, int64_t bytes,
                              int width, uint8_t flip, uint8_t *out) {
  const int64_t units = (bytes + 3) / 4;
  const __m512i flips = _mm512_set1_epi8(static_cast<char>(flip));
  for (int r0 = 0; r0 < width; r0 += 16) {
    const __mmask16 store = first_lanes(width - r0);
    const int present = std::clamp(rows - r0, 0, 16);
    for (int64_t u0 = 0; u0 < units; u0 += 16) {
      const __mmask64 in = first_bytes64(bytes - 4 * u0);
      __m512i r[16];
      for (int i = 0; i < 16; ++i) {
        r[i] = _mm512_setzero_si512();
        if (i >= present) continue;
        r[i] = _mm512_maskz_loadu_epi8(in, src + (r0 + i) * stride + 4 * u0);
        if (flip) r[i] = _mm512_maskz_mov_epi8(in, _mm512_xor_si512(r[i], flips));
      }
      transpose16(r);
      const int64_t n = std::min<int64_t>(16, units - u0);
      for (int e = 0; e < n; ++e)
        _mm512_mask_storeu_epi32(out + ((u0 + e) * width + r0) * 4, store, r[e]);
    }
  }
}

namespace {

// Panels of B from which pack_panel32_interleaved packs panel by panel
// (int8 measured at 98 panels and at 25, and level or behind at 2 and 7).
constexpr int kPanelsOneByOne = 16;

// pack_panel_contiguous for the B panels of the 32-column kernels, bf16 or
// int8: a whole unit-row (128 bytes) per step in two zmm, the interleaves
// (which work within 128-bit lanes) put back in column order by lane
// shuffles; masks computed once.
void pack_panel32_interleaved(const uint8_t *src, int64_t stride, int elem_bytes, int64_t k,
                              int cols, int panels, uint8_t flip, uint8_t *out) {
  const int group = 4 / elem_bytes;
  const int64_t unit_rows = (k + group - 1) / group;
  const int64_t panel_bytes = unit_rows * 128;
  const __m512i flips = _mm512_set1_epi8(static_cast<char>(flip));
  __mmask64 in = 0;
  const uint8_t *panel_src = src;
  // Line p of the current panel masked to the matrix and flipped, zero past k;
  // int8 lines fill a ymm.
  auto line = [&](int64_t p) {
    if (p >= k) return _mm512_setzero_si512();
    const __m512i v = _mm512_maskz_loadu_epi8(in, panel_src + p * stride);
    return flip ? _mm512_maskz_mov_epi8(in, _mm512_xor_si512(v, flips)) : v;
  };
  // bf16: unpacking two lines gives, in 128-bit lane l, the pairs of columns
  // 8l .. 8l + 3 (lo) and 8l + 4 .. 8l + 7 (hi); these 64-bit indices put the
  // lanes back in column order.
  const __m512i first16 = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
  const __m512i last16 = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
  constexpr int64_t kAhead = 16;  // as in pack_panel_contiguous_avx512
  // Panel q's lines from now on.
  const auto select_panel = [&](int q) {
    in = first_bytes64(int64_t{cols - 32 * q} * elem_bytes);
    panel_src = src + int64_t{32 * q} * elem_bytes;
  };
  const auto prefetch = [&](int64_t p) {
    for (int g = 0; g < group && p + g + kAhead < k; ++g)
      _mm_prefetch(reinterpret_cast<const char *>(panel_src + (p + g + kAhead) * stride),
                   _MM_HINT_T0);
  };
  // Unit-row u of the selected panel q.
  const auto unit_row = [&](int64_t u, int q) {
    const int64_t p = u * group;
    uint8_t *o = out + q * panel_bytes + u * 128;
    if (elem_bytes == 2) {
      const __m512i x0 = line(p), x1 = line(p + 1);
      const __m512i lo = _mm512_unpacklo_epi16(x0, x1), hi = _mm512_unpackhi_epi16(x0, x1);
      _mm512_storeu_si512(o, _mm512_permutex2var_epi64(lo, first16, hi));
      _mm512_storeu_si512(o + 64, _mm512_permutex2var_epi64(lo, last16, hi));
      return;
    }
    const __m256i x0 = _mm512_castsi512_si256(line(p)), x1 = _mm512_castsi512_si256(line(p + 1));
    const __m256i x2 = _mm512_castsi512_si256(line(p + 2));
    const __m256i x3 = _mm512_castsi512_si256(line(p + 3));
    // 128-bit lane 0 of these holds columns 0-15 and lane 1 columns 16-31.
    const __m256i lo01 = _mm256_unpacklo_epi8(x0, x1), hi01 = _mm256_unpackhi_epi8(x0, x1);
    const __m256i lo23 = _mm256_unpacklo_epi8(x2, x3), hi23 = _mm256_unpackhi_epi8(x2, x3);
    // Quads of columns [0-3 | 16-19], [4-7 | 20-23], [8-11 | 24-27], [12-15 | 28-31].
    const __m512i ab =
        _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_unpacklo_epi16(lo01, lo23)),
                           _mm256_unpackhi_epi16(lo01, lo23), 1);
    const __m512i cd =
        _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_unpacklo_epi16(hi01, hi23)),
                           _mm256_unpackhi_epi16(hi01, hi23), 1);
    _mm512_storeu_si512(o, _mm512_shuffle_i32x4(ab, cd, 0x88));
    _mm512_storeu_si512(o + 64, _mm512_shuffle_i32x4(ab, cd, 0xDD));
  };
  // Many panels, panel by panel, each written front to back: line by line
  // across them, a unit-row's stores went to panels unit_rows x 128 bytes
  // apart, a multiple of 4 KiB where k is a multiple of 64 (bf16) or 128
  // (int8), into one set of L1 (the int8 GEMM 64 x 3136 x 256, 98 panels, ran
  // 1.21-1.27x this way on 1 thread; conv runs with 2 or 7 panels read
  // 0.86-0.94x; bf16 weights of 512 to 2048 columns as B, res5's 1x1 backward
  // data at batch 1, 1.14-1.25x on 1 thread and 1.29-1.45x on 2, AMD EPYC Zen
  // 5). An int8 panel takes half of each of its k lines, which stay in L1 or
  // L2 for the next; each panel prefetches its own (where a thread's share
  // starts mid-line, prefetching on every other panel missed half of them:
  // 0.95x on 2 threads).
  if (panels >= kPanelsOneByOne) {
    for (int q = 0; q < panels; ++q) {
      select_panel(q);
      for (int64_t u = 0; u < unit_rows; ++u) {
        prefetch(u * group);
        unit_row(u, q);
      }
    }
    return;
  }
  // Else line by line across all the panels, so each line is read front to back.
  for (int64_t u = 0; u < unit_rows; ++u) {
    select_panel(0);
    prefetch(u * group);
    for (int q = 0; q < panels; ++q) {
      select_panel(q);
      unit_row(u, q);
    }
  }
}

// f32 B rows across `panels` micro-panels of 32 columns: each line is read once,
// front to back (so the hardware prefetchers stream it), and scattered to the
// panels.
void pack_f32_rows_across_panels(const uint8_t *src, int64_t stride, int64_t k, int cols,
                                 int panels, uint8_t *out) {
  const int64_t panel_bytes = k * 32 * 4;
  for (int64_t p = 0; p < k; ++p) {
    const float *line = reinterpret_cast<const float *>(src + p * stride);
    uint8_t *o = out + p * 32 * 4;
    for (int q = 0; q < panels; ++q, o += panel_bytes) {
      const int c = q * 32;
      _mm512_storeu_ps(o, _mm512_maskz_loadu_ps(first_lanes(cols - c), line + c));
      _mm512_storeu_ps(o + 64, _mm512_maskz_loadu_ps(first_lanes(cols - c - 16), line + c + 16));
    }
  }
}

// pack_panel_contiguous for int8 and bf16 A panels (the 14-row kernels'; any
// width up to 16) across `panels` micro-panels: per unit-row, its four (int8)
// or two (bf16) lines are read front to back, 64 columns at a time, and
// interleaved into units in column order (four zmm of 16 columns); each of the
// four panels those columns fill is then cut out of two neighbouring zmm by
// one permute and written with one store. Per 14-row panel this is a quarter
// of the loads, interleaves and stores of the one-panel loop below, whose
// 16-byte steps ran the packing of a pointwise NCHW int8 convolution's A at
// 8 GB/s (40 % of res2b_1x1a's time; bf16 backward data's diff_dst as A, 30 %
// of res5b_1x1a's).
void pack_units_across_panels(const uint8_t *src, int64_t stride, int elem_bytes, int64_t k,
                              int cols, int width, int panels, uint8_t flip, uint8_t *out) {
  constexpr int kGroup = 4;  // panels per 64 columns, for any width up to 16
  const int group = 4 / elem_bytes;  // lines per unit-row
  const int64_t unit_rows = (k + group - 1) / group;
  const int64_t panel_bytes = unit_rows * width * 4;
  const __m512i flips = _mm512_set1_epi8(static_cast<char>(flip));
  const __mmask16 store = first_lanes(width);
  // Panel j of a group starts at column j * width: in zmm `first[j]`, lane
  // `pick[j]`'s 0.
  int first[kGroup];
  __m512i pick[kGroup];
  for (int j = 0; j < kGroup; ++j) {
    first[j] = j * width / 16;
    pick[j] = _mm512_add_epi32(_mm512_set1_epi32(j * width % 16),
                               _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                                                 14, 15));
  }
  // bf16: unpacking two lines gives, in 128-bit lane l, the pairs of columns
  // 8l .. 8l + 3 (lo) and 8l + 4 .. 8l + 7 (hi); these 64-bit indices put the
  // lanes back in column order (as in pack_panel32_interleaved).
  const __m512i first16 = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
  const __m512i last16 = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
  constexpr int64_t kAhead = 16;  // as in pack_panel_contiguous_avx512
  const int64_t row_bytes = int64_t{cols} * elem_bytes;
  for (int64_t u = 0; u < unit_rows; ++u) {
    const int64_t p = u * group;
    for (int g = 0; g < group && p + g + kAhead < k; ++g)
      for (int64_t b = 0; b < row_bytes; b += 64)
        _mm_prefetch(reinterpret_cast<const char *>(src + (p + g + kAhead) * stride + b),
                     _MM_HINT_T0);
    for (int q0 = 0; q0 < panels; q0 += kGroup) {
      const int64_t b0 = int64_t{q0} * width * elem_bytes;  // the group's first byte
      // 64 bytes of line l from byte b of the line, masked to the matrix and
      // flipped; zero past k and past the line's end.
      auto line = [&](int64_t l, int64_t b) {
        if (l >= k || b >= row_bytes) return _mm512_setzero_si512();
        const __mmask64 in = first_bytes64(row_bytes - b);
        const __m512i v = _mm512_maskz_loadu_epi8(in, src + l * stride + b);
        return flip ? _mm512_maskz_mov_epi8(in, _mm512_xor_si512(v, flips)) : v;
      };
      __m512i v[5];  // v[m]: the units of columns 16 m .. 16 m + 15; v[4] zero
      v[4] = _mm512_setzero_si512();
      if (elem_bytes == 2) {
        for (int h = 0; h < 2; ++h) {
          const __m512i x0 = line(p, b0 + 64 * h), x1 = line(p + 1, b0 + 64 * h);
          const __m512i lo = _mm512_unpacklo_epi16(x0, x1), hi = _mm512_unpackhi_epi16(x0, x1);
          v[2 * h] = _mm512_permutex2var_epi64(lo, first16, hi);
          v[2 * h + 1] = _mm512_permutex2var_epi64(lo, last16, hi);
        }
      } else {
        const __m512i x0 = line(p, b0), x1 = line(p + 1, b0), x2 = line(p + 2, b0),
                      x3 = line(p + 3, b0);
        const __m512i lo01 = _mm512_unpacklo_epi8(x0, x1), hi01 = _mm512_unpackhi_epi8(x0, x1);
        const __m512i lo23 = _mm512_unpacklo_epi8(x2, x3), hi23 = _mm512_unpackhi_epi8(x2, x3);
        // 128-bit lane l of q[i]: the quads of columns 16 l + 4 i .. 16 l + 4 i + 3.
        const __m512i q[4] = {
            _mm512_unpacklo_epi16(lo01, lo23), _mm512_unpackhi_epi16(lo01, lo23),
            _mm512_unpacklo_epi16(hi01, hi23), _mm512_unpackhi_epi16(hi01, hi23)};
        // A 4 x 4 transpose of 128-bit lanes.
        const __m512i t0 = _mm512_shuffle_i32x4(q[0], q[1], 0x44);
        const __m512i t1 = _mm512_shuffle_i32x4(q[2], q[3], 0x44);
        const __m512i t2 = _mm512_shuffle_i32x4(q[0], q[1], 0xEE);
        const __m512i t3 = _mm512_shuffle_i32x4(q[2], q[3], 0xEE);
        v[0] = _mm512_shuffle_i32x4(t0, t1, 0x88);
        v[1] = _mm512_shuffle_i32x4(t0, t1, 0xDD);
        v[2] = _mm512_shuffle_i32x4(t2, t3, 0x88);
        v[3] = _mm512_shuffle_i32x4(t2, t3, 0xDD);
      }
      const int n = std::min(kGroup, panels - q0);
      for (int j = 0; j < n; ++j)
        _mm512_mask_storeu_epi32(
            out + (q0 + j) * panel_bytes + u * width * 4, store,
            _mm512_permutex2var_epi32(v[first[j]], pick[j], v[first[j] + 1]));
    }
  }
}

}  // namespace

void pack_panel_contiguous_avx512(const uint8_t *src, int64_t stride, int elem_bytes, int64_t k,
                                  int cols, int width, int panels, uint8_t flip, uint8_t *out) {
  if (panels > 1 && elem_bytes == 4 && width == 32)
    return pack_f32_rows_across_panels(src, stride, k, cols, panels, out);
  if (width == 32 && elem_bytes != 4)
    return pack_panel32_interleaved(src, stride, elem_bytes, k, cols, panels, flip, out);
  if (elem_bytes != 4 && width <= 16)
    return pack_units_across_panels(src, stride, elem_bytes, k, cols, width, panels, flip, out);
  if (panels > 1) {
    const int64_t panel_bytes = (k * elem_bytes + 3) / 4 * width * 4;
    for (int q = 0; q < panels; ++q)
      pack_panel_contiguous_avx512(src + int64_t{q} * width * elem_bytes, stride, elem_bytes, k,
                                   std::min(cols - q * width, width), width, 1, flip,
                                   out + q * panel_bytes);
    return;
  }
  const int group = 4 / elem_bytes;
  const int64_t unit_rows = (k + group - 1) / group;
  const __m128i flips = _mm_set1_epi8(static_cast<char>(flip));
  // 16 bytes of line p from column c0 on, masked to the matrix, flipped; zero past k.
  auto line = [&](int64_t p, int c0) {
    if (p >= k) return _mm_setzero_si128();
    const __mmask16 mask = first_lanes((cols - c0) * elem_bytes);
    const __m128i v = _mm_maskz_loadu_epi8(mask, src + p * stride + int64_t{c0} * elem_bytes);
    return flip ? _mm_maskz_mov_epi8(mask, _mm_xor_si128(v, flips)) : v;
  };
  // Four units for columns c .. c + 3 of the unit-row at o.
  auto store4 = [&](uint8_t *o, int c, __m128i v) {
    _mm_mask_storeu_epi32(o + int64_t{c} * 4, first_lanes8(width - c) & 0xF, v);
  };
  // Each line contributes one or two cache lines a long stride apart, which
  // the hardware prefetchers do not follow: fetch the lines kAhead k ahead.
  constexpr int64_t kAhead = 16;
  const int64_t row_bytes = int64_t{cols} * elem_bytes;
  for (int64_t u = 0; u < unit_rows; ++u) {
    uint8_t *o = out + u * width * 4;
    const int64_t p = u * group;
    for (int g = 0; g < group; ++g) {
      if (p + g + kAhead >= k) break;
      const uint8_t *ahead = src + (p + g + kAhead) * stride;
      _mm_prefetch(reinterpret_cast<const char *>(ahead), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char *>(ahead + row_bytes - 1), _MM_HINT_T0);
    }
    if (elem_bytes == 4) {
      for (int c0 = 0; c0 < width; c0 += 16) {
        const __mmask16 in = first_lanes(cols - c0);
        __m512i v = _mm512_maskz_loadu_epi32(in, src + p * stride + c0 * 4);
        if (flip)
          v = _mm512_maskz_mov_epi32(
              in, _mm512_xor_si512(v, _mm512_set1_epi8(static_cast<char>(flip))));
        _mm512_mask_storeu_epi32(o + c0 * 4, first_lanes(width - c0), v);
      }
    } else if (elem_bytes == 2) {
      for (int c0 = 0; c0 < width; c0 += 8) {
        const __m128i x0 = line(p, c0), x1 = line(p + 1, c0);
        store4(o, c0, _mm_unpacklo_epi16(x0, x1));
        store4(o, c0 + 4, _mm_unpackhi_epi16(x0, x1));
      }
    } else {
      for (int c0 = 0; c0 < width; c0 += 16) {
        const __m128i x0 = line(p, c0), x1 = line(p + 1, c0);
        const __m128i x2 = line(p + 2, c0), x3 = line(p + 3, c0);
        const __m128i lo01 = _mm_unpacklo_epi8(x0, x1), hi01 = _mm_unpackhi_epi8(x0, x1);
        const __m128i lo23 = _mm_unpacklo_epi8(x2, x3), hi23 = _mm_unpackhi_epi8(x2, x3);
        store4(o, c0, _mm_unpacklo_epi16(lo01, lo23));
        store4(o, c0 + 4, _mm_unpackhi_epi16(lo01, lo23));
        store4(o, c0 + 8, _mm_unpacklo_epi16(hi01, hi23));
        store4(o, c0 + 12, _mm_unpackhi_epi16(hi01, hi23));
      }
    }
  }
}

void pack_column_sums_avx512(const int8_t *panel, int64_t unit_rows, int width, int32_t *sums) {
  const __m512i ones8 = _mm512_set1_epi8(1), ones16 = _mm512_set1_epi16(1);
  for (int c0 = 0; c0 < width; c0 += 16) {
    const __mmask64 in = first_bytes64(int64_t{width - c0} * 4);
    __m512i acc = _mm512_setzero_si512();
    for (int64_t u = 0; u < unit_rows; ++u) {
      const __m512i quads = _mm512_maskz_loadu_epi8(in, panel + (u * width + c0) * 4);
      acc = _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maddubs_epi16(ones8, quads), ones16));
    }
    _mm512_mask_storeu_epi32(sums + c0, first_lanes(width - c0), acc);
  }
}

namespace {

// 16 bf16 widened to f32 (a bf16 is the top half of its f32).
__m512i widen_bf16(__mmask16 lanes, const uint16_t *src) {
  return _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(lanes, src)), 16);
}

}  // namespace

void pack_bf16_as_f32_avx512(const uint16_t *src, int64_t outer_stride, int64_t inner_stride,
                             int rows, int64_t kc, int width, float *out) {
  if (outer_stride == 1) {  // a line of the panel's rows per k step
    for (int64_t p = 0; p < kc; ++p)
      for (int t0 = 0; t0 < width; t0 += 16)
        _mm512_mask_storeu_epi32(out + p * width + t0, first_lanes(width - t0),
                                 widen_bf16(first_lanes(rows - t0), src + p * inner_stride + t0));
    return;
  }
  // Rows along k: 16 rows x 16 k steps widened, then transposed.
  for (int r0 = 0; r0 < width; r0 += 16) {
    const __mmask16 store = first_lanes(width - r0);
    const int present = std::clamp(rows - r0, 0, 16);
    for (int64_t p0 = 0; p0 < kc; p0 += 16) {
      const __mmask16 in = first_lanes(kc - p0);
      __m512i r[16];
      for (int i = 0; i < 16; ++i)
        r[i] = i < present ? widen_bf16(in, src + (r0 + i) * outer_stride + p0)
                           : _mm512_setzero_si512();
      transpose16(r);
      const int64_t n = std::min<int64_t>(16, kc - p0);
      for (int e = 0; e < n; ++e)
        _mm512_mask_storeu_epi32(out + (p0 + e) * width + r0, store, r[e]);
    }
  }
}

}  // namespace dlk::cpu::kernels
