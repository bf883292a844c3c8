// kernels/conv2d_direct_backward_weights_kernels.hpp's backward weights in AVX-512
// steps. Per image, diff_dst is turned pixel-major (16 lanes of output channels
// a pixel, zeros past k); the taps are then taken in chunks of up to kChunk,
// whose sums stay in registers over all the image's pixels: per pixel one load
// of its diff_dst vector and, per tap, a broadcast of the input value the tap
// reads and one multiply-add. Threads take runs of images, each summing into
// its own vectors, added up at the end.
#include "common/immintrin.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "backends/cpu_avx512/kernels/conv2d_direct_backward_weights_kernels.hpp"
#include "backends/cpu_avx512/kernels/pixel_major_avx512.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu::kernels {
namespace {

constexpr int kChunk = 28;  // sums of a chunk + diff_dst + the broadcast in 32 registers

// sums[t] (16 lanes) += image[offsets[t] + pixel's origin] x diff_dst vector,
// over the image's pixels (oh x ow, origins row_step and col_step apart).
template <int N>
void sum_taps(const float *image, const int64_t *offsets, const float *pixel_major, int64_t oh,
              int64_t ow, int64_t row_step, int64_t col_step, float *sums) {
  __m512 acc[N];
  int64_t off[N];
  // (Unrolled, or GCC keeps the sums in memory: a load and a store per tap.)
#pragma GCC unroll 32
  for (int t = 0; t < N; ++t) acc[t] = _mm512_load_ps(sums + 16 * t), off[t] = offsets[t];
  const float *g = pixel_major;
  for (int64_t oy = 0; oy < oh; ++oy) {
    const float *row = image + oy * row_step;
    for (int64_t ox = 0; ox < ow; ++ox, g += 16) {
      const __m512 gv = _mm512_load_ps(g);
      const float *in = row + ox * col_step;
#pragma GCC unroll 32
      for (int t = 0; t < N; ++t) acc[t] = _mm512_fmadd_ps(_mm512_set1_ps(in[off[t]]), gv, acc[t]);
    }
  }
#pragma GCC unroll 32
  for (int t = 0; t < N; ++t) _mm512_store_ps(sums + 16 * t, acc[t]);
}

using SumTaps = void (*)(const float *, const int64_t *, const float *, int64_t, int64_t, int64_t,
                         int64_t, float *);
template <int... I>
constexpr auto sum_taps_table(std::integer_sequence<int, I...>) {
  return std::array<SumTaps, sizeof...(I)>{sum_taps<I + 1>...};
}
constexpr auto kSumTaps = sum_taps_table(std::make_integer_sequence<int, kChunk>());

int64_t floats_aligned(int64_t floats) { return (floats + 15) / 16 * 16; }

}  // namespace

DirectBackwardWeightsPlan::DirectBackwardWeightsPlan(const core::Conv2dArgs &a, int threads) {
  const dlk_conv2d_desc &d = a.desc;
  team = team_size(d.n, threads);
  if (d.pad_h != 0 || d.pad_w != 0) {
    hp = d.h + 2 * d.pad_h, wp = d.w + 2 * d.pad_w;
    padded_floats = floats_aligned(d.c * hp * wp);
  }
  sums_floats = (d.c * d.kh * d.kw + 1) * 16;  // and the bias's
  pixel_major_floats = a.oh * a.ow * 16;
  thread_bytes = static_cast<size_t>(sums_floats + pixel_major_floats + padded_floats) * 4;
  // (Fewer threads where every thread's share would pass the scratch bound.)
  team = static_cast<int>(std::clamp<size_t>(kScratchBound / thread_bytes, 1, team));
  bytes = thread_bytes * static_cast<size_t>(team);
}

void conv2d_direct_backward_weights_avx512(const core::Conv2dArgs &a,
                                           const DirectBackwardWeightsPlan &plan, void *scratch) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t taps = d.c * d.kh * d.kw, pixels = a.oh * a.ow, plane = d.h * d.w;
  const bool padded = plan.padded_floats != 0;
  const int64_t in_w = padded ? plan.wp : d.w, in_plane = padded ? plan.hp * plan.wp : plane;
  // Where each tap reads, from its output pixel's origin, in KCRS order.
  int64_t offsets[kMaxDirectTaps];
  for (int64_t ci = 0, t = 0; ci < d.c; ++ci)
    for (int64_t r = 0; r < d.kh; ++r)
      for (int64_t s = 0; s < d.kw; ++s, ++t)
        offsets[t] = ci * in_plane + r * d.dilation_h * in_w + s * d.dilation_w;
  const int64_t chunks = (taps + kChunk - 1) / kChunk;
  const auto *src = static_cast<const float *>(a.src);
  const auto *diff_dst = static_cast<const float *>(a.diff_dst);
  const auto sums_of = [&](int64_t thread) {
    return reinterpret_cast<float *>(static_cast<unsigned char *>(scratch) +
                                     plan.thread_bytes * static_cast<size_t>(thread));
  };

  parallel_for(plan.team, plan.team, [&](int64_t part, int) {
    float *sums = sums_of(part);
    float *pixel_major = sums + plan.sums_floats;
    float *image_copy = pixel_major + plan.pixel_major_floats;
    std::fill_n(sums, plan.sums_floats, 0.0f);
    if (padded) std::fill_n(image_copy, plan.padded_floats, 0.0f);
    __m512 bias = _mm512_setzero_ps();
    for (int64_t image = d.n * part / plan.team; image < d.n * (part + 1) / plan.team; ++image) {
      const float *dy = diff_dst + image * d.k * pixels;
      bias = _mm512_add_ps(bias, to_pixel_major(dy, pixels, d.k, pixels, pixel_major, 16));
      const float *x = src + image * d.c * plane;
      if (padded) {  // the border stays zero from the fill above
        for (int64_t ci = 0; ci < d.c; ++ci)
          for (int64_t y = 0; y < d.h; ++y)
            std::copy_n(x + ci * plane + y * d.w, d.w,
                        image_copy + ci * in_plane + (y + d.pad_h) * in_w + d.pad_w);
        x = image_copy;
      }
      for (int64_t c = 0; c < chunks; ++c) {
        const int64_t t0 = taps * c / chunks, t1 = taps * (c + 1) / chunks;
        // (One output row takes no row step: a stride near INT64_MAX times
        // the width would overflow, found by fuzz_conv2d.)
        kSumTaps[static_cast<size_t>(t1 - t0 - 1)](x, offsets + t0, pixel_major, a.oh, a.ow,
                                                   a.oh > 1 ? d.stride_h * in_w : 0, d.stride_w,
                                                   sums + 16 * t0);
      }
    }
    _mm512_store_ps(sums + 16 * taps, bias);
  });

  float *total = sums_of(0);
  for (int64_t part = 1; part < plan.team; ++part) {
    const float *add = sums_of(part);
    for (int64_t e = 0; e < plan.sums_floats; e += 16)
      _mm512_store_ps(total + e, _mm512_add_ps(_mm512_load_ps(total + e), _mm512_load_ps(add + e)));
  }
  auto *diff_weights = static_cast<float *>(a.diff_weights);
  for (int64_t o = 0; o < d.k; ++o) {
    for (int64_t t = 0; t < taps; ++t) diff_weights[o * taps + t] = total[t * 16 + o];
    if (a.diff_bias) a.diff_bias[o] = total[taps * 16 + o];
  }
}

}  // namespace dlk::cpu::kernels
