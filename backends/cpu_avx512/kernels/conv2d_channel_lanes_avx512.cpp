// kernels/conv2d_channel_lanes_kernels.hpp's convolution in AVX-512 steps.
#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "backends/cpu_avx512/kernels/conv2d_channel_lanes_kernels.hpp"
#include "backends/cpu_avx512/kernels/transpose16_avx512.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"

constexpr int kPixels = 14;    // pixels of a tile: 14 x 2 sums + 2 weights + a broadcast
constexpr int kVectors = 2;    // of 16 output channels
constexpr int64_t kBlock = 16 * kVectors;

// P pixels x V vectors of output channels over `taps` taps: pixel p of tap t
// reads src + off[t] + p SW (NCHW: SW is the stride; 0: NHWC, p step), its
// weights are w + t V 16. Bias added, ReLU where asked, the sums go to
// channel i of pixel p at dst + i dst_stride + p (NCHW: turned channel-major
// by 16 x 16 transposes, a row of pixels a store) or at dst + p dst_stride +
// i (NHWC: a vector of channels a store), for i < channels.
template <int P, int V, int SW>
void tile(const float *src, int64_t step, const int32_t *off, int64_t taps, const float *w,
          const float *bias, bool relu, float *dst, int64_t dst_stride, int channels) {
  __m512 acc[P][V];
  for (int p = 0; p < P; ++p)
    for (int v = 0; v < V; ++v) acc[p][v] = _mm512_setzero_ps();
  for (int64_t t = 0; t < taps; ++t) {
    const float *s = src + off[t];
    __m512 wv[V];
    for (int v = 0; v < V; ++v) wv[v] = _mm512_load_ps(w + (t * V + v) * 16);
    for (int p = 0; p < P; ++p) {
      const __m512 b = _mm512_set1_ps(s[SW > 0 ? p * SW : p * step]);
      for (int v = 0; v < V; ++v) acc[p][v] = _mm512_fmadd_ps(b, wv[v], acc[p][v]);
    }
  }
  const auto epilogue = [relu](__m512 sums, __m512 add) {
    const __m512 out = _mm512_add_ps(sums, add);
    return relu ? _mm512_maskz_max_ps(0xffff, out, _mm512_setzero_ps()) : out;
  };
  if constexpr (SW == 0) {
    for (int v = 0; v < V; ++v) {
      const __mmask16 lanes = first_lanes(channels - 16 * v);
      const __m512 add = bias ? _mm512_maskz_loadu_ps(lanes, bias + 16 * v) : _mm512_setzero_ps();
      for (int p = 0; p < P; ++p)
        _mm512_mask_storeu_ps(dst + p * dst_stride + 16 * v, lanes, epilogue(acc[p][v], add));
    }
  } else {
    const __mmask16 pixels = first_lanes(P);
    for (int v = 0; v < V; ++v) {
      __m512 rows[16];
      for (int p = 0; p < 16; ++p) rows[p] = p < P ? acc[p][v] : _mm512_setzero_ps();
      transpose16(rows);
      for (int i = 0; i < 16 && 16 * v + i < channels; ++i) {
        const __m512 add = _mm512_set1_ps(bias ? bias[16 * v + i] : 0.0f);
        _mm512_mask_storeu_ps(dst + (16 * v + i) * dst_stride, pixels, epilogue(rows[i], add));
      }
    }
  }
}

using Tile = void (*)(const float *, int64_t, const int32_t *, int64_t, const float *,
                      const float *, bool, float *, int64_t, int);

template <int V, int SW, int... P>
constexpr std::array<Tile, sizeof...(P)> tiles_of(std::integer_sequence<int, P...>) {
  return {tile<P + 1, V, SW>...};
}

// The tile of `pixels` (1-14) x `vectors` (1-2): NHWC, or NCHW at input column
// stride `sw` (1 or 2).
Tile tile_of(int pixels, int vectors, bool nhwc, int64_t sw) {
  constexpr auto kAll = std::make_integer_sequence<int, kPixels>{};
  static constexpr std::array<Tile, kPixels> table[2][3] = {
      {tiles_of<1, 0>(kAll), tiles_of<1, 1>(kAll), tiles_of<1, 2>(kAll)},
      {tiles_of<2, 0>(kAll), tiles_of<2, 1>(kAll), tiles_of<2, 2>(kAll)}};
  return table[vectors - 1][nhwc ? 0 : sw][pixels - 1];
}

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

}  // namespace

ChannelLanesPlan::ChannelLanesPlan(const core::Conv2dArgs &a, int threads) {
  const dlk_conv2d_desc &d = a.desc;
  const int team = team_size(d.n, threads);
  images_per_thread = team > 1 && d.n >= team;
  buffers = images_per_thread ? team : 1;
  // NHWC pixels 2^n KiB apart would put a tile's 14 pixels in few L1 sets
  // (res4a's 256 channels at stride 2: 14 lines in 2 sets of each row read);
  // 16 floats more spread them (res4a 0.92x -> 1.02x the GEMM at batch 1).
  pixel_floats = d.format != DLK_FORMAT_NHWC ? 1 : d.c % 16 == 0 && d.c >= 128 ? d.c + 16 : d.c;
  hp = (a.oh - 1) * d.stride_h + (d.kh - 1) * d.dilation_h + 1;
  wp = (a.ow - 1) * d.stride_w + (d.kw - 1) * d.dilation_w + 1;
  plane = hp * wp;
  taps = d.c * d.kh * d.kw;
  blocks = (d.k + kBlock - 1) / kBlock;
  offsets_count = taps;
  weight_floats = blocks * kBlock * taps;
  image_floats = d.format == DLK_FORMAT_NHWC ? plane * pixel_floats : d.c * plane;
  bytes = ScratchCarver::aligned(static_cast<size_t>(offsets_count) * sizeof(int32_t)) +
          ScratchCarver::aligned(static_cast<size_t>(weight_floats) * sizeof(float)) +
          ScratchCarver::aligned(static_cast<size_t>(image_floats) * sizeof(float)) *
              static_cast<size_t>(buffers);
}

void conv2d_channel_lanes_avx512(const core::Conv2dArgs &a, int threads,
                                 const ChannelLanesPlan &p, void *scratch, bool turned) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t pixels = a.oh * a.ow;
  ScratchCarver carve(scratch);
  auto *offsets = carve.carve<int32_t>(p.offsets_count);
  auto *packed = carve.carve<float>(p.weight_floats);
  // Each padded image starts a cache line.
  const int64_t buffer_stride = static_cast<int64_t>(ScratchCarver::aligned(
                                    static_cast<size_t>(p.image_floats) * sizeof(float))) /
                                static_cast<int64_t>(sizeof(float));
  auto *images = carve.carve<float>(buffer_stride * p.buffers);
  // The taps in the weights' order: OIHW (ci, r, s) over planes of hp x wp,
  // OHWI (r, s, ci) over an image of hp x wp pixels of c channels.
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  for (int64_t ci = 0; ci < d.c; ++ci)
    for (int64_t r = 0; r < d.kh; ++r)
      for (int64_t s = 0; s < d.kw; ++s) {
        const int64_t pixel = r * d.dilation_h * p.wp + s * d.dilation_w;
        if (nhwc)
          offsets[(r * d.kw + s) * d.c + ci] = static_cast<int32_t>(pixel * p.pixel_floats + ci);
        else
          offsets[(ci * d.kh + r) * d.kw + s] = static_cast<int32_t>(ci * p.plane + pixel);
      }

  // Turned: W'[o][ci][r][s] = W[ci][o][kh - 1 - r][kw - 1 - s], W with d.c
  // output channels: input channel ci's run of kh x kw taps for output channel
  // o lies at W + (ci d.k + o) khw, reversed.
  const int64_t khw = d.kh * d.kw;
  const WeightRuns runs = turned ? WeightRuns{d.c, khw, d.k * khw, khw, true}
                                 : WeightRuns{1, p.taps, 0, p.taps, false};
  const auto *weights = static_cast<const float *>(a.weights);
  parallel_for(p.blocks, threads, [&](int64_t b, int) {
    pack_block(weights, d.k, runs, b, packed + b * kBlock * p.taps);
  });

  const auto *src = static_cast<const float *>(a.src);
  auto *dst = static_cast<float *>(a.dst);
  // Rows of a padded plane that hold image rows, and their columns.
  const int64_t y_end = std::min(d.h, p.hp - d.pad_h), x_end = std::min(d.w, p.wp - d.pad_w);
  // Units [u0, u1) of image n into the padded image at `image`: NCHW
  // channels (planes), NHWC padded rows (of wp pixels).
  const int64_t units = nhwc ? p.hp : d.c;
  const auto pad = [&](int64_t n, int64_t u0, int64_t u1, float *image) {
    const auto zero = [](float *to, int64_t count) {
      std::memset(to, 0, static_cast<size_t>(count) * sizeof(float));
    };
    for (int64_t u = u0; u < u1; ++u) {
      if (nhwc) {
        const int64_t y = u - d.pad_h, cp = p.pixel_floats;
        float *out = image + u * p.wp * cp;
        if (y < 0 || y >= y_end) {
          zero(out, p.wp * cp);
          continue;
        }
        zero(out, d.pad_w * cp);
        const float *in = src + ((n * d.h + y) * d.w) * d.c;
        if (cp == d.c)
          std::memcpy(out + d.pad_w * cp, in, static_cast<size_t>(x_end * d.c) * sizeof(float));
        else
          for (int64_t x = 0; x < x_end; ++x) {
            std::memcpy(out + (d.pad_w + x) * cp, in + x * d.c,
                        static_cast<size_t>(d.c) * sizeof(float));
            zero(out + (d.pad_w + x) * cp + d.c, cp - d.c);
          }
        zero(out + (d.pad_w + x_end) * cp, (p.wp - d.pad_w - x_end) * cp);
        continue;
      }
      const float *in = src + (n * d.c + u) * d.h * d.w;
      float *out = image + u * p.plane;
      zero(out, p.plane);
      for (int64_t y = 0; y < y_end; ++y)
        std::memcpy(out + (d.pad_h + y) * p.wp + d.pad_w, in + y * d.w,
                    static_cast<size_t>(x_end) * sizeof(float));
    }
  };
  // Output row y of block b (32 output channels) of image n, read from `image`.
  const auto compute = [&](int64_t n, const float *image, int64_t b, int64_t y) {
    const int64_t o0 = kBlock * b;
    const int channels = static_cast<int>(std::min<int64_t>(kBlock, d.k - o0));
    const int vectors = (channels + 15) / 16;
    // An input pixel's floats (NCHW: 1), and where dst's output row starts.
    const int64_t pixel = p.pixel_floats;
    const float *row = image + y * d.stride_h * p.wp * pixel;
    float *out = nhwc ? dst + (n * a.oh + y) * a.ow * d.k + o0
                      : dst + (n * d.k + o0) * pixels + y * a.ow;
    const int64_t out_pixel = nhwc ? d.k : 1, out_stride = nhwc ? d.k : pixels;
    for (int64_t x0 = 0; x0 < a.ow; x0 += kPixels) {
      const int n_pixels = static_cast<int>(std::min<int64_t>(kPixels, a.ow - x0));
      tile_of(n_pixels, vectors, nhwc, d.stride_w)(
          row + x0 * d.stride_w * pixel, d.stride_w * pixel, offsets, p.taps,
          packed + o0 * p.taps, a.bias ? a.bias + o0 : nullptr, d.relu != 0,
          out + x0 * out_pixel, out_stride, channels);
    }
  };
  if (p.images_per_thread) {
    parallel_for(d.n, threads, [&](int64_t n, int thread) {
      float *image = images + thread * buffer_stride;
      pad(n, 0, units, image);
      for (int64_t b = 0; b < p.blocks; ++b)
        for (int64_t y = 0; y < a.oh; ++y) compute(n, image, b, y);
    });
    return;
  }
  for (int64_t n = 0; n < d.n; ++n) {
    parallel_for(units, threads, [&](int64_t u, int) { pad(n, u, u + 1, images); });
    // A block of output channels and an output row a task, block-major: a
    // thread's blocks' weights stay in its L2 while it passes over the rows.
    parallel_for(p.blocks * a.oh, threads,
                 [&](int64_t task, int) { compute(n, images, task / a.oh, task % a.oh); });
  }
}

}  // namespace dlk::cpu::kernels
