// kernels/conv2d_channel_lanes_kernels.hpp's convolution in AVX-512 steps.
#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
#include <utility>

#include "backends/cpu_avx512/kernels/bf16_round_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_channel_lanes_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_direct_kernels.hpp"
#include "backends/cpu_avx512/kernels/gemm_store_kernels.hpp"
#include "backends/cpu_avx512/kernels/transpose16_avx512.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"

constexpr int64_t kBlock = 16 * kChannelLanesVectors;

#include "backends/cpu_avx512/kernels/conv2d_channel_lanes_tile_avx512.inc"

struct Fma : FloatSums {
  static __m512 madd(__m512 acc, __m512 a, __m512 b) { return _mm512_fmadd_ps(a, b, acc); }
};

// Block b of the packed weights: packed[t bw + o] = the weight of tap t and
// output channel 32 b + o for its bw (16 or 32) lanes, zeros past k. The
// weights as stored are `runs` runs of `run` taps each, output channel o's
// run g at weights + g run_stride + o row_stride, tap j of it tap g run + j
// (reversed: g run + run - 1 - j); 16 x 16 pieces turned in registers.
struct WeightRuns {
  int64_t runs, run, run_stride, row_stride;
  bool reversed;
};
void pack_block(const float *weights, int64_t k, const WeightRuns &w, int64_t b, float *packed) {
  const int64_t o0 = kBlock * b, width = std::min<int64_t>(kBlock, (k - o0 + 15) / 16 * 16);
  for (int64_t g = 0; g < w.runs; ++g)
    for (int64_t half = 0; half < width; half += 16)
      for (int64_t j0 = 0; j0 < w.run; j0 += 16) {
        const __mmask16 in = first_lanes(w.run - j0);
        const float *first = weights + g * w.run_stride + (o0 + half) * w.row_stride + j0;
        __m512 rows[16];
        for (int64_t i = 0; i < 16; ++i)
          rows[i] = o0 + half + i < k ? _mm512_maskz_loadu_ps(in, first + i * w.row_stride)
                                      : _mm512_setzero_ps();
        transpose16(rows);
        for (int64_t j = j0; j < std::min(w.run, j0 + 16); ++j) {
          const int64_t t = g * w.run + (w.reversed ? w.run - 1 - j : j);
          _mm512_store_ps(packed + t * width + half, rows[j - j0]);
        }
      }
}

// Block b of backward data's NHWC weights turned: the transposed
// convolution's tap t = (r kw + s) units + u (u one of its d.c input channels,
// or a pair of them for bf16) holds W[o][kh - 1 - r][kw - 1 - s][32 b ..] of W
// in OHWI with d.k input channels (bf16: o = 2u and 2u + 1, interleaved into
// 32-bit elements), the block's lanes contiguous there: copied, zeros past d.k.
void pack_block_turned_ohwi(const void *weights, const dlk_conv2d_desc &d, bool pairs,
                            int64_t units, int64_t b, float *packed) {
  const int64_t o0 = kBlock * b, width = std::min<int64_t>(kBlock, (d.k - o0 + 15) / 16 * 16);
  const auto at = [&](int64_t o, int64_t r, int64_t s) {
    return ((o * d.kh + d.kh - 1 - r) * d.kw + d.kw - 1 - s) * d.k + o0;
  };
  for (int64_t r = 0; r < d.kh; ++r)
    for (int64_t s = 0; s < d.kw; ++s)
      for (int64_t u = 0; u < units; ++u) {
        float *to = packed + ((r * d.kw + s) * units + u) * width;
        for (int64_t half = 0; half < width; half += 16) {
          if (!pairs) {
            _mm512_store_ps(to + half, _mm512_maskz_loadu_ps(first_lanes(d.k - o0 - half),
                                                             static_cast<const float *>(weights) +
                                                                 at(u, r, s) + half));
            continue;
          }
          // (d.c is even where bf16 runs here: conv2d_channel_lanes_applies.)
          const auto *w = static_cast<const uint16_t *>(weights);
          const int64_t lanes = std::min<int64_t>(16, d.k - o0 - half);
          const auto widened = [&](int64_t o) {
            // (This file has AVX512F alone: no 16-bit masked load.)
            const uint16_t *from = w + at(o, r, s) + half;
            std::array<uint16_t, 16> some{};
            if (lanes < 16) std::copy(from, from + lanes, some.begin());
            return _mm512_cvtepu16_epi32(
                _mm256_loadu_si256(reinterpret_cast<const __m256i *>(lanes < 16 ? some.data() : from)));
          };
          _mm512_store_si512(to + half,
                             _mm512_or_si512(widened(2 * u), _mm512_slli_epi32(widened(2 * u + 1), 16)));
        }
      }
}

}  // namespace

ChannelLanesPlan::ChannelLanesPlan(const core::Conv2dArgs &a, int threads) {
  const dlk_conv2d_desc &d = a.desc;
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  pairs = d.src_type == DLK_DTYPE_BF16;
  quads = d.src_type == DLK_DTYPE_U8 || d.src_type == DLK_DTYPE_S8;
  units = quads ? (d.c + 3) / 4 : pairs ? (d.c + 1) / 2 : d.c;
  const int team = team_size(d.n, threads);
  images_per_thread = team > 1 && d.n >= team;
  buffers = images_per_thread ? team : 1;
  // NHWC pixels 2^n KiB apart would put a tile's 14 pixels in few L1 sets
  // (res4a's 256 channels at stride 2: 14 lines in 2 sets of each row read);
  // 16 elements more spread them (res4a 0.92x -> 1.02x the GEMM at batch 1).
  pixel_floats = !nhwc ? 1 : units % 16 == 0 && units >= 128 ? units + 16 : units;
  hp = (a.oh - 1) * d.stride_h + (d.kh - 1) * d.dilation_h + 1;
  wp = (a.ow - 1) * d.stride_w + (d.kw - 1) * d.dilation_w + 1;
  plane = hp * wp;
  taps = units * d.kh * d.kw;
  blocks = (d.k + kBlock - 1) / kBlock;
  offsets_count = taps;
  weight_floats = blocks * kBlock * taps;
  paired_floats = (pairs || quads) && !nhwc ? d.k * taps : 0;
  starts_count = quads ? blocks * kBlock : 0;
  image_floats = nhwc ? plane * pixel_floats : units * plane;
  const bool staged = pairs || (quads && d.dst_type != DLK_DTYPE_S32);
  stages = staged ? team_size(std::max(d.n, blocks * a.oh), threads) : 0;
  stage_floats = kBlock * a.ow;
  const auto floats = [](int64_t n) {
    return ScratchCarver::aligned(static_cast<size_t>(n) * sizeof(float));
  };
  bytes = ScratchCarver::aligned(static_cast<size_t>(offsets_count) * sizeof(int32_t)) +
          floats(weight_floats) + floats(paired_floats) + floats(starts_count) +
          floats(image_floats) * static_cast<size_t>(buffers) +
          floats(stage_floats) * static_cast<size_t>(stages);
}

void conv2d_channel_lanes_avx512(const core::Conv2dArgs &a, int threads,
                                 const ChannelLanesPlan &p, void *scratch, bool turned) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t pixels = a.oh * a.ow, khw = d.kh * d.kw;
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  // Each padded image and stage starts a cache line.
  const auto stride_of = [](int64_t n) {
    return static_cast<int64_t>(ScratchCarver::aligned(static_cast<size_t>(n) * sizeof(float))) /
           static_cast<int64_t>(sizeof(float));
  };
  const int64_t image_stride = stride_of(p.image_floats), stage_stride = stride_of(p.stage_floats);
  ScratchCarver carve(scratch);
  auto *offsets = carve.carve<int32_t>(p.offsets_count);
  auto *packed = carve.carve<float>(p.weight_floats);
  auto *paired = carve.carve<uint32_t>(p.paired_floats);
  auto *starts = carve.carve<int32_t>(p.starts_count);
  auto *images = carve.carve<float>(image_stride * p.buffers);
  auto *stages = carve.carve<float>(stage_stride * p.stages);

  // The taps in the weights' order: OIHW (u, r, s) over planes of hp x wp,
  // OHWI (r, s, u) over an image of hp x wp pixels, u a channel or a pair.
  for (int64_t u = 0; u < p.units; ++u)
    for (int64_t r = 0; r < d.kh; ++r)
      for (int64_t s = 0; s < d.kw; ++s) {
        const int64_t pixel = r * d.dilation_h * p.wp + s * d.dilation_w;
        if (nhwc)
          offsets[(r * d.kw + s) * p.units + u] = static_cast<int32_t>(pixel * p.pixel_floats + u);
        else
          offsets[(u * d.kh + r) * d.kw + s] = static_cast<int32_t>(u * p.plane + pixel);
      }

  // The weights as 32-bit elements in tap order, each output channel's taps
  // in a row: f32 as they lie (turned: W'[o][ci][r][s] = W[ci][o][kh - 1 -
  // r][kw - 1 - s], W with d.c output channels, input channel ci's run of kh x
  // kw taps for output channel o at W + (ci d.k + o) khw, reversed); bf16
  // NHWC as they lie too (OHWI with c even: a pair of channels is a 32-bit
  // element); bf16 NCHW paired first (and turned), int8 NCHW quadded first
  // (NHWC with c a multiple of 4 as it lies), a share of the output channels
  // a thread.
  // int8's sums start at -(zero point x the channel's weight sum), modulo
  // 2^32, so that every tap adds (src - zero point) x weight (s8 src shifted
  // by 128 into u8, its zero point likewise).
  const float *weights = static_cast<const float *>(a.weights);
  const bool shift = d.src_type == DLK_DTYPE_S8;
  const auto zero_byte = static_cast<uint8_t>(d.src_zero_point);
  const auto zero_u8 = static_cast<uint8_t>(shift ? zero_byte ^ 0x80u : zero_byte);
  if (p.pairs || p.quads) {
    parallel_for_shares(d.k, threads, [&](int64_t o0, int64_t o1) {
      if (p.pairs && !nhwc)
        wide_rows_bf16_pair_weights(static_cast<const uint16_t *>(a.weights), d.k, d.c, khw,
                                    turned, o0, o1 - o0, p.taps, paired + o0 * p.taps);
      if (!p.quads) return;
      const auto *w = static_cast<const int8_t *>(a.weights);
      if (!nhwc)
        wide_rows_int8_quad_weights(w + o0 * d.c * khw, o1 - o0, d.c, khw, p.taps,
                                    paired + o0 * p.taps, starts + o0);
      else
        for (int64_t o = o0; o < o1; ++o)
          starts[o] = std::accumulate(w + o * d.c * khw, w + (o + 1) * d.c * khw, int32_t{0});
      for (int64_t o = o0; o < o1; ++o)
        starts[o] = static_cast<int32_t>(0u - uint32_t{zero_u8} * static_cast<uint32_t>(starts[o]));
    });
    if (!nhwc) weights = reinterpret_cast<const float *>(paired);
  }
  // (bf16 NCHW's pairing turned them already.)
  const WeightRuns runs = turned && !p.pairs ? WeightRuns{d.c, khw, d.k * khw, khw, true}
                                             : WeightRuns{1, p.taps, 0, p.taps, false};
  parallel_for(p.blocks, threads, [&](int64_t b, int) {
    if (turned && nhwc)
      pack_block_turned_ohwi(a.weights, d, p.pairs, p.units, b, packed + b * kBlock * p.taps);
    else
      pack_block(weights, d.k, runs, b, packed + b * kBlock * p.taps);
  });

  // Rows of a padded plane that hold image rows, and their columns.
  const int64_t y_end = std::min(d.h, p.hp - d.pad_h), x_end = std::min(d.w, p.wp - d.pad_w);
  const auto zero = [](float *to, int64_t count) {
    std::memset(to, 0, static_cast<size_t>(count) * sizeof(float));
  };
  // Units [u0, u1) of image n into the padded image at `image`: NCHW
  // channels or pairs of them (planes), NHWC padded rows (of wp pixels).
  const int64_t units = nhwc ? p.hp : p.units;
  const uint32_t padding = zero_u8 * 0x01010101u;
  const auto pad = [&](int64_t n, int64_t u0, int64_t u1, float *image) {
    for (int64_t u = u0; u < u1; ++u) {
      if (nhwc && p.quads) {
        // A pixel of src: p.units quads of bytes, s8 shifted into u8;
        // padding pixels the zero point's bytes.
        const int64_t y = u - d.pad_h, cp = p.pixel_floats, c = p.units;
        auto *out = reinterpret_cast<uint32_t *>(image) + u * p.wp * cp;
        std::fill(out, out + p.wp * cp, padding);
        if (y < 0 || y >= y_end) continue;
        const auto *in = static_cast<const uint8_t *>(a.src) + ((n * d.h + y) * d.w) * d.c;
        const uint32_t flip = shift ? 0x80808080u : 0u;
        for (int64_t x = 0; x < x_end; ++x)
          for (int64_t q = 0; q < c; ++q) {
            uint32_t word;
            std::memcpy(&word, in + (x * c + q) * 4, sizeof word);
            out[(d.pad_w + x) * cp + q] = word ^ flip;
          }
        continue;
      }
      if (nhwc) {
        // A pixel of src: p.units 32-bit elements (f32, or bf16 pairs).
        const int64_t y = u - d.pad_h, cp = p.pixel_floats, c = p.units;
        float *out = image + u * p.wp * cp;
        if (y < 0 || y >= y_end) {
          zero(out, p.wp * cp);
          continue;
        }
        zero(out, d.pad_w * cp);
        const float *in = static_cast<const float *>(a.src) + ((n * d.h + y) * d.w) * c;
        if (cp == c)
          std::memcpy(out + d.pad_w * cp, in, static_cast<size_t>(x_end * c) * sizeof(float));
        else
          for (int64_t x = 0; x < x_end; ++x) {
            std::memcpy(out + (d.pad_w + x) * cp, in + x * c, static_cast<size_t>(c) * sizeof(float));
            zero(out + (d.pad_w + x) * cp + c, cp - c);
          }
        zero(out + (d.pad_w + x_end) * cp, (p.wp - d.pad_w - x_end) * cp);
        continue;
      }
      if (p.quads) {
        // Channels 4u .. 4u + 3 (past c: the zero point) in each element,
        // the padding the zero point's bytes.
        auto *words = reinterpret_cast<uint32_t *>(image + u * p.plane);
        const auto *channels = static_cast<const uint8_t *>(a.src) + n * d.c * d.h * d.w;
        for (int64_t i = 0; i < p.hp; ++i) {
          const int64_t y = i - d.pad_h;
          uint32_t *row = words + i * p.wp;
          if (y < 0 || y >= y_end) {
            std::fill(row, row + p.wp, padding);
            continue;
          }
          const uint8_t *rows[4];
          for (int64_t q = 0; q < 4; ++q)
            rows[q] = 4 * u + q < d.c ? channels + ((4 * u + q) * d.h + y) * d.w : nullptr;
          wide_rows_int8_quad_row(rows, d.w, -d.pad_w, 1, p.wp, zero_byte, shift, row);
        }
        continue;
      }
      float *out = image + u * p.plane;
      zero(out, p.plane);
      if (p.pairs) {
        // Channels 2u and 2u + 1 (zeros past c) in each element.
        const auto *src = static_cast<const uint16_t *>(a.src) + (n * d.c + 2 * u) * d.h * d.w;
        const uint16_t *hi = 2 * u + 1 < d.c ? src + d.h * d.w : nullptr;
        auto *words = reinterpret_cast<uint32_t *>(out);
        for (int64_t y = 0; y < y_end; ++y) {
          uint32_t *row = words + (d.pad_h + y) * p.wp + d.pad_w;
          for (int64_t x = 0; x < x_end; ++x)
            row[x] = src[y * d.w + x] | (hi ? uint32_t{hi[y * d.w + x]} << 16 : 0u);
        }
        continue;
      }
      const float *in = static_cast<const float *>(a.src) + (n * d.c + u) * d.h * d.w;
      for (int64_t y = 0; y < y_end; ++y)
        std::memcpy(out + (d.pad_h + y) * p.wp + d.pad_w, in + y * d.w,
                    static_cast<size_t>(x_end) * sizeof(float));
    }
  };
  // Output row y of block b (32 output channels) of image n, read from
  // `image`: f32 and int8's s32 into dst, bf16 and int8 to other types
  // through `stage`, rounded once or requantized by the integer GEMM's store.
  const auto compute = [&](int64_t n, const float *image, int64_t b, int64_t y, int thread) {
    const int64_t o0 = kBlock * b;
    const int channels = static_cast<int>(std::min<int64_t>(kBlock, d.k - o0));
    const int vectors = (channels + 15) / 16;
    const int64_t pixel = p.pixel_floats;
    const float *row = image + y * d.stride_h * p.wp * pixel;
    const bool staged = p.stages > 0;
    float *stage = stages + thread * stage_stride;
    // Where the row's sums go: dst's row, or the stage, channel-major (NCHW)
    // or pixel-major (NHWC).
    float *out = staged ? stage
                 : nhwc ? static_cast<float *>(a.dst) + (n * a.oh + y) * a.ow * d.k + o0
                        : static_cast<float *>(a.dst) + (n * d.k + o0) * pixels + y * a.ow;
    const int64_t out_pixel = nhwc ? (staged ? kBlock : d.k) : 1;
    const int64_t out_stride = nhwc ? out_pixel : staged ? a.ow : pixels;
    // int8 starts from its starting sums, its ReLU in the tile for s32 dst
    // only (else in the requantizing store).
    const float *bias = p.quads ? reinterpret_cast<const float *>(starts + o0)
                        : a.bias ? a.bias + o0
                                 : nullptr;
    const bool relu = d.relu != 0 && !(p.quads && staged);
    for (int64_t x0 = 0; x0 < a.ow; x0 += kChannelLanesPixels) {
      const int n_pixels = static_cast<int>(std::min<int64_t>(kChannelLanesPixels, a.ow - x0));
      const ChannelLanesTile tile =
          p.quads   ? channel_lanes_int8_tile(n_pixels, vectors, nhwc, d.stride_w)
          : p.pairs ? channel_lanes_bf16_tile(n_pixels, vectors, nhwc, d.stride_w)
                    : tile_of<Fma>(n_pixels, vectors, nhwc, d.stride_w);
      tile(row + x0 * d.stride_w * pixel, d.stride_w * pixel, offsets, p.taps,
           packed + o0 * p.taps, bias, relu, out + x0 * out_pixel, out_stride, channels);
    }
    if (!staged) return;
    if (p.quads) {
      const auto *sums = reinterpret_cast<const int32_t *>(stage);
      auto *bytes = static_cast<unsigned char *>(a.dst);
      const auto size = static_cast<int64_t>(dlk_dtype_size(d.dst_type));
      if (nhwc) {
        gemm_store_s32_avx512(S32TileStore{
            sums, kBlock, a.ow, channels, bytes + ((n * a.oh + y) * a.ow * d.k + o0) * size, d.k,
            1, d.dst_type, 0.0f, a.multiplier,
            a.channel_multipliers ? a.channel_multipliers + o0 : nullptr, nullptr,
            a.bias ? a.bias + o0 : nullptr, d.relu != 0, d.dst_zero_point});
        return;
      }
      for (int64_t i = 0; i < channels; ++i)
        gemm_store_s32_avx512(S32TileStore{
            sums + i * a.ow, a.ow, 1, a.ow,
            bytes + ((n * d.k + o0 + i) * pixels + y * a.ow) * size, a.ow, 1, d.dst_type, 0.0f,
            a.multiplier_of(o0 + i), nullptr, a.bias ? a.bias + o0 + i : nullptr, nullptr,
            d.relu != 0, d.dst_zero_point});
      return;
    }
    auto *dst = static_cast<uint16_t *>(a.dst);
    if (nhwc)
      for (int64_t x = 0; x < a.ow; ++x)
        round_to_bf16_avx512(stage + x * kBlock, channels,
                             dst + ((n * a.oh + y) * a.ow + x) * d.k + o0);
    else
      for (int64_t i = 0; i < channels; ++i)
        round_to_bf16_avx512(stage + i * a.ow, a.ow, dst + (n * d.k + o0 + i) * pixels + y * a.ow);
  };
  if (p.images_per_thread) {
    parallel_for(d.n, threads, [&](int64_t n, int thread) {
      float *image = images + thread * image_stride;
      pad(n, 0, units, image);
      for (int64_t b = 0; b < p.blocks; ++b)
        for (int64_t y = 0; y < a.oh; ++y) compute(n, image, b, y, thread);
    });
    return;
  }
  for (int64_t n = 0; n < d.n; ++n) {
    parallel_for(units, threads, [&](int64_t u, int) { pad(n, u, u + 1, images); });
    // A block of output channels and an output row a task, block-major: a
    // thread's blocks' weights stay in its L2 while it passes over the rows.
    parallel_for(p.blocks * a.oh, threads, [&](int64_t task, int thread) {
      compute(n, images, task / a.oh, task % a.oh, thread);
    });
  }
}

}  // namespace dlk::cpu::kernels
