// kernels/conv2d_direct_kernels.hpp's wide-row convolution in AVX-512 steps.
//
// An image is copied once into zero-padded planes (Hp x Wp, Hp = h + 2 pad_h,
// Wp = w + 2 pad_w, or as far as the outputs read). With stride 1 and no
// dilation, output pixel (y, x) reads plane element (y + r) * Wp + (x + s) at
// tap (ci, r, s): counting output pixels over the padded width ("wide"
// column j = y * Wp + x, the columns with x >= ow junk), the im2col row of a
// tap is the plane itself shifted by r * Wp + s. So the micro-kernel reads B
// straight from the padded image, one unaligned load per 16 columns and tap,
// and no im2col panel is ever packed.
// The weights are A as they lie (OIHW: each output channel's taps in a row,
// in the micro-kernel's tap order), so nothing is packed at all. Backward data
// runs here too, as the convolution of diff_dst with the weights turned around
// (WideRowsPlan::turned), which are then copied turned once per call: read in
// W itself, each turned row's taps lay 4.5 KiB - 18 KiB apart (k x kh x kw
// floats, ResNet-50 res3b-res5b), beyond the reach of the hardware's stride
// prefetchers, and the first such version ran at 0.85-1.04x the GEMM + col2im
// route on res4b and VGG-16 conv3_2 / conv5_x (1 and 2 threads, Intel Xeon
// model 207, not a quiet timing). A tile is 8 output channels x 48 wide columns (24
// sums in registers); its store (and, past the first block of input channels,
// its load) goes straight to dst through lane masks that drop the junk
// columns, a masked vector per output row the 16 columns touch. Bias is the
// first block's starting value, ReLU applied in the last block's store. int8
// runs the same loops on k-quads (conv2d_wide_rows_int8_avx512vnni.cpp), its
// starting value -(zero point x the weights' sum) of the channel.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "backends/cpu_avx512/float_storage.hpp"
#include "backends/cpu_avx512/gemm_driver.hpp"
#include "backends/cpu_avx512/kernels/bf16_round_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_direct_kernels.hpp"
#include "backends/cpu_avx512/kernels/gemm_store_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"

constexpr int kRows = 8;     // output channels of a tile (A's panel width)
constexpr int kVectors = 3;  // vectors of 16 wide columns in a tile
constexpr int kCols = 16 * kVectors;

#include "backends/cpu_avx512/kernels/conv2d_wide_rows_tile_avx512.inc"

// The wide-row template's storage of int8 src (u8 or s8, taken as bytes).
struct Int8Quads {
  using type = uint8_t;
};

struct FmaF32 : SumsF32 {
  static __m512 madd(__m512 acc, __m512 a, __m512 b) { return _mm512_fmadd_ps(a, b, acc); }
};

// Which dst lanes wide columns j0 .. j0 + 15 are: per output row they touch, the
// lanes with x < ow and y < oh, and the dst index lane 0 would have.
void segments_of(int64_t j0, int64_t wp, int64_t oh, int64_t ow, WideRowsSegments &out) {
  out.count = 0;
  int lane = 0;
  while (lane < 16) {
    const int64_t j = j0 + lane, y = j / wp, x = j % wp;
    if (y >= oh) break;
    const int run = static_cast<int>(std::min<int64_t>(16 - lane, wp - x));
    const int valid = static_cast<int>(std::clamp<int64_t>(ow - x, 0, run));
    if (valid > 0) {
      const auto mask = static_cast<uint16_t>(((1u << valid) - 1u) << lane);
      out.seg[out.count++] = {y * ow + x - lane, mask};
    }
    lane += run;
  }
}

// One padded row of `width` floats: row[j] = in[j - left] where j - left lies
// in [0, count), else 0; a masked load and store per 16 columns (a memset,
// memcpy and memset a row took a tenth of the time of backward data's phases
// on ResNeXt-50 conv3_1, rows of 28 and 29 floats).
void pad_row(const float *in, int64_t left, int64_t count, int64_t width, float *row) {
  for (int64_t j = 0; j < width; j += 16) {
    const int64_t x0 = j - left;
    _mm512_mask_storeu_ps(
        row + j, first_lanes(width - j),
        _mm512_maskz_loadu_ps(lane_range(-x0, count - x0), lane_address(in, x0)));
  }
}

// Even (odd) padded columns of one row into a phase row of `width`: column
// pc = parity + 2 jq of the padded row is in[pc - pad_w] where that lies in
// [0, w), else 0. f32: 32 input elements a step, their even or odd lanes
// picked by vpermt2ps; lanes outside the row masked off in the loads.
template <class Storage>
void split_row(const typename Storage::type *in, int64_t w, int64_t pad_w, int64_t parity,
               int64_t width, float *out) {
  if constexpr (std::is_same_v<typename Storage::type, float>) {
    const __m512i pick =
        _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    // Lanes l of [x0, x0 + 16) with 0 <= x0 + l < w.
    const auto lanes = [w](int64_t x0) { return lane_range(-x0, w - x0); };
    for (int64_t jq = 0; jq < width; jq += 16) {
      const int64_t x0 = parity + 2 * jq - pad_w;
      const __m512 lo = _mm512_maskz_loadu_ps(lanes(x0), lane_address(in, x0));
      const __m512 hi = _mm512_maskz_loadu_ps(lanes(x0 + 16), lane_address(in, x0 + 16));
      const int64_t n = std::min<int64_t>(16, width - jq);
      _mm512_mask_storeu_ps(out + jq, static_cast<__mmask16>((1u << n) - 1u),
                            _mm512_permutex2var_ps(lo, pick, hi));
    }
  } else {
    for (int64_t jq = 0; jq < width; ++jq) {
      const int64_t x = parity + 2 * jq - pad_w;
      out[jq] = x >= 0 && x < w ? Storage::load(in[x]) : 0.0f;
    }
  }
}

// One channel's image (h x w at `in`) into its stride-2 phase planes at
// `out`: phase (ph, pw) holds padded row ph + 2 i, column pw + 2 jq at
// (ph * 2 + pw) phase_plane + i wp + jq; rows outside the image are zeros.
template <class Storage>
void split_phases(const typename Storage::type *in, const dlk_conv2d_desc &d,
                  const WideRowsPlan &p, float *out) {
  for (int64_t ph = 0; ph < p.sh; ++ph)
    for (int64_t pw = 0; pw < p.sw; ++pw) {
      float *phase = out + (ph * p.sw + pw) * p.phase_plane;
      for (int64_t i = 0; i < p.hp; ++i) {
        const int64_t y = ph + p.sh * i - d.pad_h;
        float *row = phase + i * p.wp;
        if (y < 0 || y >= d.h)
          std::memset(row, 0, static_cast<size_t>(p.wp) * sizeof(float));
        else
          split_row<Storage>(in + y * d.w, d.w, d.pad_w, pw, p.wp, row);
      }
    }
}

// Channels `lo` and `hi` (hi null: zeros) of one image (h x w each) into
// their padded planes of k-pairs at `out` (stride 2: the phase planes), the
// bf16 bits of channel lo in the low half of each element, hi's in the high.
void pair_planes(const uint16_t *lo, const uint16_t *hi, const dlk_conv2d_desc &d,
                 const WideRowsPlan &p, uint32_t *out) {
  for (int64_t ph = 0; ph < p.sh; ++ph)
    for (int64_t pw = 0; pw < p.sw; ++pw) {
      uint32_t *phase = out + (ph * p.sw + pw) * p.phase_plane;
      // The columns jq whose x = pw + sw jq - pad_w lies in [0, w).
      const int64_t first = std::clamp<int64_t>((d.pad_w - pw + p.sw - 1) / p.sw, 0, p.wp);
      const int64_t end =
          std::clamp<int64_t>((d.w + d.pad_w - pw + p.sw - 1) / p.sw, first, p.wp);
      for (int64_t i = 0; i < p.hp; ++i) {
        const int64_t y = ph + p.sh * i - d.pad_h;
        uint32_t *row = phase + i * p.wp;
        if (y < 0 || y >= d.h) {
          std::memset(row, 0, static_cast<size_t>(p.wp) * sizeof(uint32_t));
          continue;
        }
        std::memset(row, 0, static_cast<size_t>(first) * sizeof(uint32_t));
        const int64_t x0 = pw + p.sw * first - d.pad_w;
        const uint16_t *r0 = lo + y * d.w + x0;
        const uint16_t *r1 = hi ? hi + y * d.w + x0 : nullptr;
        // 16 pairs a step (an element at a time, the pairing took half as
        // long as the products of ResNeXt-50 conv3_1's bf16 backward-data
        // phases, and 2.5 times as long at stride 2 forward); at stride 2 a
        // pair's elements are the low halves of 32-bit lanes of each row.
        for (int64_t jq = 0; hi != nullptr && jq < end - first; jq += 16) {
          const int64_t count = end - first - jq;
          __m512i l, h;
          if (p.sw == 1) {
            l = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(first_lanes(count), r0 + jq));
            h = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(first_lanes(count), r1 + jq));
          } else {
            const __mmask32 words = first_words(2 * count - 1);
            l = _mm512_maskz_loadu_epi16(words, r0 + 2 * jq);
            h = _mm512_maskz_loadu_epi16(words, r1 + 2 * jq);
          }
          _mm512_mask_storeu_epi32(
              row + first + jq, first_lanes(count),
              _mm512_ternarylogic_epi32(l, _mm512_set1_epi32(0xFFFF), _mm512_slli_epi32(h, 16),
                                        0xEA));
        }
        if (hi == nullptr)
          for (int64_t jq = 0; jq < end - first; ++jq) row[first + jq] = r0[p.sw * jq];
        std::memset(row + end, 0, static_cast<size_t>(p.wp - end) * sizeof(uint32_t));
      }
    }
}

}  // namespace

WideRowsPlan::WideRowsPlan(const core::Conv2dArgs &a, int threads, bool turned_weights,
                           WideRowsImageShape shape)
    : turned(turned_weights) {
  const dlk_conv2d_desc &d = a.desc;
  pairs = d.src_type == DLK_DTYPE_BF16 && bf16_dot_outpaces_fma(core::cpu_features());
  quads = d.src_type == DLK_DTYPE_U8 || d.src_type == DLK_DTYPE_S8;
  units = pairs ? (d.c + 1) / 2 : quads ? (d.c + 3) / 4 : d.c;
  sh = d.stride_h;
  sw = d.stride_w;
  // The padded rows the outputs read, (oh - 1) sh + kh (h + 2 pad_h at
  // stride 1), from the output size, which validation bounds: the padding
  // alone may be far larger than any tensor; a phase plane holds every sh-th.
  hp = std::max(a.oh - 1 + (d.kh + sh - 1) / sh, shape.rows);
  wp = std::max(a.ow - 1 + (d.kw + sw - 1) / sw, shape.pitch);
  phase_plane = hp * wp;
  plane = sh * sw * phase_plane;
  wide_columns = a.oh * wp;
  tiles = (wide_columns + kCols - 1) / kCols;
  // A block of input channels keeps its B rows (kh rows of each channel's
  // plane, 48 columns plus the kernel's width and a line of misalignment) in
  // L1 (48 KiB on Sapphire/Emerald Rapids) beside the 8 x kc weights of the
  // tile's panel: 40 KiB of this estimate, which counts the lines neighbouring
  // tiles share. Fewer blocks are fewer masked passes over dst; against the
  // GEMM (1 thread, CPU time, Intel Xeon model 207) budgets of 24 / 40 / 64
  // KiB ran res2a 1.20 / 1.25 / 1.23x, res3b 1.00 / 1.09 / 1.10x, res4b
  // 1.02 / 1.04 / 1.01x, VGG-16 conv3_2 1.02 / 1.04 / 0.92x.
  // At stride 2 a channel's taps read kh x 2 rows of its phases, but a tile
  // of 48 columns spans several of a phase's rows, which its kernel rows
  // share: counted as kh rows, as at stride 1, the blocks are twice as large
  // as with 2 kh, and ResNet-50 res3a / res4a ran 3-4 % faster (1 thread,
  // CPU time per call, AMD EPYC Zen 5 (family 26)); a quarter as large, 4-5 %
  // slower.
  const int64_t lines = (kCols + (d.kw - 1) / sw + 15) / 16 + 1;
  const int64_t per_channel = d.kh * lines * 64;
  const int64_t fit = std::max<int64_t>(1, (int64_t{40} << 10) / per_channel);
  const int64_t blocks = (units + fit - 1) / fit;  // (a pair's or quad's element is a float's size)
  channel_block = (units + blocks - 1) / blocks;
  // A chunk's dst within 256 KiB of L2 (2 MiB), beside a block's weights.
  chunk_tiles = std::max<int64_t>(1, (int64_t{256} << 10) / (d.k * kCols * 4));
  images_per_thread = d.n >= threads;
  buffers = images_per_thread ? std::max(threads, 1) : 1;
  // Reads run up to a tile's 48 columns and the kernel's width past the last
  // phase plane's wide columns: zeroed slack.
  image_floats = units * plane + kCols + std::max(d.kw, shape.kw) + 16;
  if (d.src_type != DLK_DTYPE_F32 && !(quads && d.dst_type == DLK_DTYPE_S32))
    staged_floats = d.k * a.oh * a.ow;
  if (d.src_type != DLK_DTYPE_F32 || turned) weight_floats = d.k * units * d.kh * d.kw;
  if (quads) start_floats = d.k;
  const auto aligned = [](int64_t floats) { return (floats * 4 + 63) / 64 * 64; };
  offsets_bytes = aligned(channel_block * d.kh * d.kw);
  bytes = static_cast<size_t>(offsets_bytes + aligned(weight_floats) + aligned(start_floats) +
                              buffers * (aligned(image_floats) + aligned(staged_floats)));
}

namespace {

template <class Storage>
void wide_rows(const core::Conv2dArgs &a, int threads, const WideRowsPlan &p, void *scratch,
               WideRowsImage kept) {
  using T = typename Storage::type;
  constexpr bool f32 = std::is_same_v<T, float>;
  constexpr bool int8 = std::is_same_v<Storage, Int8Quads>;
  const dlk_conv2d_desc &d = a.desc;
  const int64_t khw = d.kh * d.kw, taps = p.units * khw, pixels = a.oh * a.ow;
  const int64_t blocks = (p.units + p.channel_block - 1) / p.channel_block;
  const auto aligned = [](int64_t floats) { return (floats * 4 + 63) / 64 * 16; };
  auto *bytes = static_cast<unsigned char *>(scratch);
  auto *offsets = reinterpret_cast<int32_t *>(bytes);
  auto *widened = reinterpret_cast<float *>(bytes + p.offsets_bytes);
  // int8's starting sums, s32 bits as the tiles' biases.
  float *starts = widened + aligned(p.weight_floats);
  float *images = starts + aligned(p.start_floats);
  const int64_t buffer_stride = aligned(p.image_floats) + aligned(p.staged_floats);
  const auto *src = static_cast<const T *>(a.src);
  auto *dst = static_cast<T *>(a.dst);
  // int8: the zero point's byte, and u8's as the tiles read it (s8 shifted).
  const bool shift = d.src_type == DLK_DTYPE_S8;
  const auto zero_byte = static_cast<uint8_t>(d.src_zero_point);
  const auto zero_u8 = static_cast<uint8_t>(shift ? zero_byte ^ 0x80u : zero_byte);

  // The weights in f32 OIHW: as stored (f32), widened (f16/bf16), or turned
  // around, W'[o][ci][t] = W[ci][o][khw - 1 - t] (W with d.c output and d.k
  // input channels), and widened; or (pairs) W'[o][u][t] holds the bits of
  // channels 2u and 2u + 1 (0 past d.c).
  const float *weights = static_cast<const float *>(a.weights);
  if constexpr (int8) {
    // Each tap adds (u8 src) x weight; the start takes the zero point's
    // share off, modulo 2^32 as the sums wrap.
    parallel_for_shares(d.k, threads, [&](int64_t o0, int64_t o1) {
      auto *sums = reinterpret_cast<int32_t *>(starts) + o0;
      wide_rows_int8_quad_weights(static_cast<const int8_t *>(a.weights) + o0 * d.c * khw,
                                  o1 - o0, d.c, khw, taps,
                                  reinterpret_cast<uint32_t *>(widened + o0 * taps), sums);
      for (int64_t o = 0; o < o1 - o0; ++o) {
        const uint32_t start = 0u - uint32_t{zero_u8} * static_cast<uint32_t>(sums[o]);
        std::memcpy(sums + o, &start, sizeof start);
      }
    });
    weights = widened;
  } else if (p.weight_floats > 0) {
    const auto *stored = static_cast<const T *>(a.weights);
    if constexpr (!f32) {
      if (p.pairs) {
        parallel_for_shares(d.k, threads, [&](int64_t o0, int64_t o1) {
          wide_rows_bf16_pair_weights(stored, d.k, d.c, khw, p.turned, o0, o1 - o0, taps,
                                      reinterpret_cast<uint32_t *>(widened + o0 * taps));
        });
      }
    }
    if (f32 || !p.pairs) {
      const auto weight = [&](int64_t o, int64_t ci, int64_t t) {
        return p.turned ? stored[(ci * d.k + o) * khw + khw - 1 - t]
                        : stored[(o * d.c + ci) * khw + t];
      };
      parallel_for(d.k, threads, [&](int64_t o, int) {
        float *row = widened + o * taps;
        for (int64_t ci = 0; ci < d.c; ++ci)
          for (int64_t t = 0; t < khw; ++t) row[ci * khw + t] = Storage::load(weight(o, ci, t));
      });
    }
    weights = widened;
  }

  const int64_t panels = (d.k + kRows - 1) / kRows;
  const auto tile_of = [&](int rows, int vectors) {
    return p.quads   ? wide_rows_int8_tile(rows, vectors)
           : p.pairs ? wide_rows_bf16_tile(rows, vectors)
                     : wide_rows_tile_of<FmaF32>(rows, vectors);
  };
  for (int64_t ci = 0; ci < p.channel_block; ++ci)
    for (int64_t r = 0; r < d.kh; ++r)
      for (int64_t s = 0; s < d.kw; ++s) {
        const int64_t phase = r % p.sh * p.sw + s % p.sw;
        offsets[(ci * d.kh + r) * d.kw + s] = static_cast<int32_t>(
            ci * p.plane + phase * p.phase_plane + r / p.sh * p.wp + s / p.sw);
      }

  // Units (channels, or pairs of them) [c0, c1) of image `image` into the
  // padded planes at `padded` (f16/bf16 widened to f32, or paired), or their
  // phase planes at stride 2.
  const auto pad_channels = [&](int64_t image, int64_t c0, int64_t c1, float *padded) {
    if constexpr (int8) {
      const T *channels = src + image * d.c * d.h * d.w;
      const uint32_t padding = zero_u8 * 0x01010101u;
      for (int64_t u = c0; u < c1; ++u) {
        const uint8_t *rows[4];
        for (int64_t ph = 0; ph < p.sh; ++ph)
          for (int64_t i = 0; i < p.hp; ++i) {
            const int64_t y = ph + p.sh * i - d.pad_h;
            for (int64_t pw = 0; pw < p.sw; ++pw) {
              auto *row = reinterpret_cast<uint32_t *>(padded + u * p.plane +
                                                       (ph * p.sw + pw) * p.phase_plane) +
                          i * p.wp;
              if (y < 0 || y >= d.h) {
                std::fill(row, row + p.wp, padding);
                continue;
              }
              for (int64_t q = 0; q < 4; ++q)
                rows[q] = 4 * u + q < d.c ? channels + ((4 * u + q) * d.h + y) * d.w : nullptr;
              wide_rows_int8_quad_row(rows, d.w, pw - d.pad_w, p.sw, p.wp, zero_byte, shift,
                                      4 * (u + 1) < d.c && pw == 0 ? 4 * d.h * d.w : 0, row);
            }
          }
      }
    } else if (p.pairs || p.sh != 1 || p.sw != 1) {
      const T *channels = src + image * d.c * d.h * d.w;
      for (int64_t u = c0; u < c1; ++u) {
        float *out = padded + u * p.plane;
        if constexpr (!f32) {
          if (p.pairs) {
            const T *hi = 2 * u + 1 < d.c ? channels + (2 * u + 1) * d.h * d.w : nullptr;
            pair_planes(channels + 2 * u * d.h * d.w, hi, d, p,
                        reinterpret_cast<uint32_t *>(out));
            continue;
          }
        }
        split_phases<Storage>(channels + u * d.h * d.w, d, p, out);
      }
    } else {
      // The padding below and right of the image is what the outputs read
      // (hp, wp): pad_h and pad_w as validated, other amounts for backward
      // data's phases (conv2d_backward_data_wide_rows_phases.cpp).
      const int64_t top = std::min(d.pad_h, p.hp), left = std::min(d.pad_w, p.wp);
      const int64_t rows = std::clamp<int64_t>(p.hp - top, 0, d.h);
      const int64_t cols = std::clamp<int64_t>(p.wp - left, 0, d.w);
      const auto zero = [](float *at, int64_t count) {
        std::memset(at, 0, static_cast<size_t>(count) * sizeof(float));
      };
      for (int64_t ci = c0; ci < c1; ++ci) {
        float *out = padded + ci * p.plane;
        const T *in = src + (image * d.c + ci) * d.h * d.w;
        zero(out, top * p.wp);
        for (int64_t y = 0; y < rows; ++y) {
          float *row = out + (top + y) * p.wp;
          if constexpr (f32) {
            pad_row(in + y * d.w, left, cols, p.wp, row);
          } else {
            zero(row, left);
            for (int64_t x = 0; x < cols; ++x) row[left + x] = Storage::load(in[y * d.w + x]);
            zero(row + left + cols, p.wp - left - cols);
          }
        }
        zero(out + (top + rows) * p.wp, (p.hp - top - rows) * p.wp);
      }
    }
    // The slack past the last plane, which a tile's reads run into.
    if (c1 == p.units)
      std::memset(padded + p.units * p.plane, 0,
                  static_cast<size_t>(p.image_floats - p.units * p.plane) * sizeof(float));
  };
  // What the first block starts from: the bias (float types), int8's starts;
  // int8's ReLU only where the sums are dst (s32), else in the store.
  const auto start_of = [&](int64_t o) -> const float * {
    if (int8) return starts + o * kRows;
    return a.bias ? a.bias + o * kRows : nullptr;
  };
  const bool relu = d.relu != 0 && !(int8 && p.staged_floats > 0);
  // The output pixel of wide column j, or the first after it where j is junk.
  const auto pixel_of = [&](int64_t j) {
    return j >= p.wide_columns ? pixels : j / p.wp * a.ow + std::min(j % p.wp, a.ow);
  };
  // Tiles [t0, t1) of one image, in chunks whose dst (k x the chunk's columns)
  // stays in L2 while the blocks of input channels pass over it (VGG-16
  // conv3_2's 3.2 MB dst, loaded and stored once per block, came from L3:
  // 0.87x the GEMM lowering before). Within a chunk, blocks of input channels
  // outermost, so that a block's weights (k x kc) stay in L2 while every tile
  // passes over them. f16/bf16 sum into `staged` (f32, dst's layout) and
  // round a chunk's pixels once into dst as the chunk is done, from L2.
  const auto compute = [&](int64_t image, const float *padded, float *staged, int64_t t0,
                           int64_t t1, int64_t o0, int64_t o1) {
    float *image_dst = staged;
    if constexpr (f32) image_dst = dst + image * d.k * pixels;
    if constexpr (int8)
      if (p.staged_floats == 0)  // s32 dst: the sums themselves
        image_dst = reinterpret_cast<float *>(static_cast<int32_t *>(a.dst) + image * d.k * pixels);
    for (int64_t c0 = t0; c0 < t1; c0 += p.chunk_tiles) {
      const int64_t c1 = std::min(t1, c0 + p.chunk_tiles);
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t tap0 = b * p.channel_block * khw;
        const int64_t kc = std::min(p.channel_block, p.units - b * p.channel_block) * khw;
        const float *block_src = padded + b * p.channel_block * p.plane;
        for (int64_t t = c0; t < c1; ++t) {
          const int64_t j0 = t * kCols;
          const int vectors =
              static_cast<int>(std::min<int64_t>(kVectors, (p.wide_columns - j0 + 15) / 16));
          WideRowsSegments segs[kVectors];
          for (int v = 0; v < vectors; ++v) segments_of(j0 + 16 * v, p.wp, a.oh, a.ow, segs[v]);
          for (int64_t o = o0; o < o1; ++o) {
            const int rows = static_cast<int>(std::min<int64_t>(kRows, d.k - o * kRows));
            tile_of(rows, vectors)(weights + o * kRows * taps + tap0, taps, block_src + j0,
                                   offsets, kc, image_dst + o * kRows * pixels, pixels, segs,
                                   start_of(o), b == 0, b == blocks - 1, relu);
          }
        }
      }
      if constexpr (int8) {
        // f32, s8, u8 dst: each channel's pixels, a 1 x pixels tile, by the
        // integer GEMM's store.
        if (p.staged_floats > 0) {
          const int64_t q0 = pixel_of(c0 * kCols), q1 = pixel_of(c1 * kCols);
          const size_t size = dlk_dtype_size(d.dst_type);
          for (int64_t o = o0 * kRows; o < std::min(d.k, o1 * kRows); ++o)
            gemm_store_s32_avx512(S32TileStore{
                reinterpret_cast<const int32_t *>(staged + o * pixels + q0), q1 - q0, 1, q1 - q0,
                static_cast<unsigned char *>(a.dst) + ((image * d.k + o) * pixels + q0) * size,
                q1 - q0, 1, d.dst_type, 0.0f, a.multiplier_of(o), nullptr, nullptr,
                a.bias ? a.bias + o : nullptr, nullptr, d.relu != 0, d.dst_zero_point});
        }
      } else if constexpr (!f32) {
        const int64_t q0 = pixel_of(c0 * kCols), q1 = pixel_of(c1 * kCols);
        for (int64_t o = o0 * kRows; o < std::min(d.k, o1 * kRows); ++o) {
          T *out = dst + (image * d.k + o) * pixels;
          if constexpr (std::is_same_v<Storage, FloatStorage<DLK_DTYPE_BF16>>)
            round_to_bf16_avx512(staged + o * pixels + q0, q1 - q0, out + q0);
          else
            for (int64_t q = q0; q < q1; ++q) out[q] = Storage::store(staged[o * pixels + q]);
        }
      }
    }
  };

  if (p.images_per_thread) {
    parallel_for(d.n, threads, [&](int64_t image, int thread) {
      float *own = images + thread * buffer_stride;
      float *padded = kept.planes ? kept.planes : own;
      if (!kept.padded) pad_channels(image, 0, p.units, padded);
      compute(image, padded, own + aligned(p.image_floats), 0, p.tiles, 0, panels);
    });
    return;
  }
  // Fewer images than threads: all threads pad an image's channels, then each
  // takes a share of its tiles, or, with fewer than 4 tiles a thread, of its
  // panels of output channels (res4b's 5 tiles split 3 / 2 ran at 2 threads
  // as fast as on one).
  const int team = team_size(p.tiles * panels, threads);
  const bool by_panels = p.tiles < 4 * team;
  float *staged = images + aligned(p.image_floats);
  for (int64_t image = 0; image < d.n; ++image) {
    parallel_for(team, team, [&](int64_t i, int) {
      pad_channels(image, p.units * i / team, p.units * (i + 1) / team, images);
    });
    parallel_for(team, team, [&](int64_t i, int) {
      if (by_panels)
        compute(image, images, staged, 0, p.tiles, panels * i / team, panels * (i + 1) / team);
      else
        compute(image, images, staged, p.tiles * i / team, p.tiles * (i + 1) / team, 0, panels);
    });
  }
}

}  // namespace

void conv2d_wide_rows_avx512(const core::Conv2dArgs &a, int threads, const WideRowsPlan &p,
                             void *scratch, WideRowsImage image) {
  if (p.quads) return wide_rows<Int8Quads>(a, threads, p, scratch, image);
  with_float_storage(a.desc.src_type, [&](auto storage) {
    wide_rows<decltype(storage)>(a, threads, p, scratch, image);
  });
}

}  // namespace dlk::cpu::kernels
