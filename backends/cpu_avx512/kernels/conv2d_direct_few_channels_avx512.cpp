// kernels/conv2d_direct_kernels.hpp's direct convolution in AVX-512 steps. A
// block of up to 12 output pixels of one output row keeps its sums in 12
// vectors (16 output channels each) across all taps: per tap one load of the
// tap's weights (turned tap-major once per group, in registers' order) and a
// broadcast of each pixel's input value, one multiply-add per pixel. The block
// is then turned channel-major through a small tile and stored into the
// output channels' planes, bias and ReLU applied. A padded convolution reads a
// zero-padded copy of the group's image made by its task (a few KiB: LeNet-5
// conv1's 32 x 32), so every block reads inside its rows.
#include <immintrin.h>

#include <algorithm>

#include "backends/cpu_avx512/kernels/conv2d_direct_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu::kernels {
namespace {

constexpr int kPixels = 12;  // output pixels of a block: 12 sums + weights + input in registers

template <int N>
void block(const float *src, int64_t plane, int64_t w, int64_t stride_w, int64_t dil_h,
           int64_t dil_w, int64_t cg, int64_t kh, int64_t kw, const float *weights, float *tile) {
  __m512 acc[N];
  for (int j = 0; j < N; ++j) acc[j] = _mm512_setzero_ps();
  const float *tap_weights = weights;
  for (int64_t ci = 0; ci < cg; ++ci)
    for (int64_t r = 0; r < kh; ++r) {
      const float *row = src + ci * plane + r * dil_h * w;
      for (int64_t q = 0; q < kw; ++q, tap_weights += 16) {
        const __m512 wv = _mm512_load_ps(tap_weights);
        const float *in = row + q * dil_w;
        for (int j = 0; j < N; ++j)
          acc[j] = _mm512_fmadd_ps(_mm512_set1_ps(in[j * stride_w]), wv, acc[j]);
      }
    }
  for (int j = 0; j < N; ++j) _mm512_store_ps(tile + 16 * j, acc[j]);
}

using Block = void (*)(const float *, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, const float *, float *);
constexpr Block kBlockOf[kPixels] = {block<1>, block<2>, block<3>,  block<4>,
                                     block<5>, block<6>, block<7>,  block<8>,
                                     block<9>, block<10>, block<11>, block<12>};

// Tasks: an image and group each, or, with fewer of them than threads, also
// a share of the output rows.
int64_t row_blocks_of(const core::Conv2dArgs &a, int threads) {
  const dlk_conv2d_desc &d = a.desc;
  return d.n * d.groups < threads ? std::min<int64_t>(a.oh, threads) : 1;
}

// Floats of a group's zero-padded image (<= kMaxDirectPaddedFloats), 0 unpadded.
int64_t padded_image_floats(const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &d = a.desc;
  if (d.pad_h == 0 && d.pad_w == 0) return 0;
  return a.c_per_group * (d.h + 2 * d.pad_h) * (d.w + 2 * d.pad_w);
}

}  // namespace

size_t conv2d_direct_few_channels_scratch_bytes(const core::Conv2dArgs &a, int threads) {
  const int64_t tasks = a.desc.n * a.desc.groups * row_blocks_of(a, threads);
  return static_cast<size_t>(padded_image_floats(a) * team_size(tasks, threads)) * sizeof(float);
}

void conv2d_direct_few_channels_avx512(const core::Conv2dArgs &a, int threads, void *scratch) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t cg = a.c_per_group, kg = a.k_per_group, taps = cg * d.kh * d.kw;
  const int64_t plane = d.h * d.w, pixels = a.oh * a.ow;
  const auto *src = static_cast<const float *>(a.src);
  const auto *weights = static_cast<const float *>(a.weights);
  auto *dst = static_cast<float *>(a.dst);
  const int64_t row_blocks = row_blocks_of(a, threads);
  const int64_t hp = d.h + 2 * d.pad_h, wp = d.w + 2 * d.pad_w;
  const int64_t padded_floats = padded_image_floats(a);
  auto *padded_images = static_cast<float *>(scratch);
  parallel_for(d.n * d.groups * row_blocks, threads, [&](int64_t task, int thread) {
    const int64_t image = task / (d.groups * row_blocks), g = task / row_blocks % d.groups;
    const int64_t block_index = task % row_blocks;
    const int64_t oy0 = a.oh * block_index / row_blocks, oy1 = a.oh * (block_index + 1) / row_blocks;
    // The group's weights tap-major, 16 lanes of output channels (zeros past kg).
    alignas(64) float by_tap[kMaxDirectTaps * 16];
    for (int64_t t = 0; t < taps; ++t)
      for (int64_t o = 0; o < 16; ++o)
        by_tap[t * 16 + o] = o < kg ? weights[(g * kg + o) * taps + t] : 0.0f;
    const float *image_src = src + (image * d.c + g * cg) * plane;
    int64_t in_plane = plane, in_w = d.w;
    if (padded_floats > 0) {
      float *copy = padded_images + thread * padded_floats;
      std::fill_n(copy, padded_floats, 0.0f);
      for (int64_t ci = 0; ci < cg; ++ci)
        for (int64_t y = 0; y < d.h; ++y)
          std::copy_n(image_src + ci * plane + y * d.w, d.w,
                      copy + ci * hp * wp + (y + d.pad_h) * wp + d.pad_w);
      image_src = copy, in_plane = hp * wp, in_w = wp;
    }
    float *image_dst = dst + (image * d.k + g * kg) * pixels;
    alignas(64) float tile[kPixels * 16];
    for (int64_t oy = oy0; oy < oy1; ++oy)
      for (int64_t ox = 0; ox < a.ow; ox += kPixels) {
        const int n = static_cast<int>(std::min<int64_t>(kPixels, a.ow - ox));
        kBlockOf[n - 1](image_src + oy * d.stride_h * in_w + ox * d.stride_w, in_plane, in_w,
                        d.stride_w, d.dilation_h, d.dilation_w, cg, d.kh, d.kw, by_tap, tile);
        for (int64_t o = 0; o < kg; ++o) {
          const float bias = a.bias ? a.bias[g * kg + o] : 0.0f;
          float *out = image_dst + o * pixels + oy * a.ow + ox;
          for (int j = 0; j < n; ++j) {
            const float v = tile[j * 16 + o] + bias;
            out[j] = d.relu && v < 0.0f ? 0.0f : v;
          }
        }
      }
  });
}

}  // namespace dlk::cpu::kernels
