// kernels/conv2d_direct_backward_kernels.hpp's backward data in AVX-512 steps.
// Per image, diff_dst is copied into zero-padded planes (padding (kh - 1) x
// dilation - pad above and left, so that every tap reads inside them); the
// weights are turned once per call into blocks of up to kMaxChannels channels,
// tap-major ([k][kh][kw][channels of the block]). Each block of channels x 2
// rows x 16 columns of diff_src then sums over every tap of every diff_dst
// channel in registers and is stored once (masked past the row's end), so
// diff_src needs no zeroing. Threads take runs of images.
#include "common/immintrin.hpp"

#include <algorithm>
#include <array>

#include "backends/cpu_avx512/kernels/conv2d_direct_backward_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu::kernels {
namespace {

// Channels of a block: 2 rows x 8 sums, 8 broadcast weights and 2 rows of
// diff_dst in the 32 registers.
constexpr int kMaxChannels = 8;

struct Taps {
  int64_t k, kh, kw, dilation_h, dilation_w;
  int64_t plane, wp;  // of the padded diff_dst
};

// diff_src channels [0, C) x rows [0, R) x the `lanes` of 16 columns at `out`
// (rows out_row apart, channels out_plane apart). `origin` is where padded
// diff_dst's channel 0 is read by tap (0, 0) for the first row: tap (r, s) of
// channel kk reads origin + kk x plane - r x dilation_h x wp - s x dilation_w.
template <int C, int R>
void block(const float *origin, const float *weights, const Taps &t, __mmask16 lanes, float *out,
           int64_t out_row, int64_t out_plane) {
  __m512 acc[C][R];
#pragma GCC unroll 8
  for (int c = 0; c < C; ++c)
#pragma GCC unroll 2
    for (int j = 0; j < R; ++j) acc[c][j] = _mm512_setzero_ps();
  const float *w = weights;
  for (int64_t kk = 0; kk < t.k; ++kk)
    for (int64_t r = 0; r < t.kh; ++r) {
      const float *row = origin + kk * t.plane - r * t.dilation_h * t.wp;
      for (int64_t s = 0; s < t.kw; ++s, w += C) {
        __m512 x[R];
#pragma GCC unroll 2
        for (int j = 0; j < R; ++j)
          x[j] = _mm512_maskz_loadu_ps(lanes, row + j * t.wp - s * t.dilation_w);
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) {
          const __m512 wv = _mm512_set1_ps(w[c]);
#pragma GCC unroll 2
          for (int j = 0; j < R; ++j) acc[c][j] = _mm512_fmadd_ps(wv, x[j], acc[c][j]);
        }
      }
    }
#pragma GCC unroll 8
  for (int c = 0; c < C; ++c)
#pragma GCC unroll 2
    for (int j = 0; j < R; ++j)
      _mm512_mask_storeu_ps(out + c * out_plane + j * out_row, lanes, acc[c][j]);
}

using Block = void (*)(const float *, const float *, const Taps &, __mmask16, float *, int64_t,
                       int64_t);
template <int C>
constexpr std::array<Block, 2> blocks_of() {
  return {block<C, 1>, block<C, 2>};
}
constexpr std::array<std::array<Block, 2>, kMaxChannels> kBlocks = {
    blocks_of<1>(), blocks_of<2>(), blocks_of<3>(), blocks_of<4>(),
    blocks_of<5>(), blocks_of<6>(), blocks_of<7>(), blocks_of<8>()};

int64_t floats_aligned(int64_t floats) { return (floats + 15) / 16 * 16; }

}  // namespace

DirectBackwardDataPlan::DirectBackwardDataPlan(const core::Conv2dArgs &a, int threads) {
  const dlk_conv2d_desc &d = a.desc;
  hp = d.h + (d.kh - 1) * d.dilation_h, wp = d.w + (d.kw - 1) * d.dilation_w;
  padded_floats = floats_aligned(d.k * hp * wp);
  weights_floats = floats_aligned(d.k * d.c * d.kh * d.kw);
  const size_t weights_bytes = static_cast<size_t>(weights_floats) * 4;
  const size_t thread_bytes = static_cast<size_t>(padded_floats) * 4;
  team = team_size(d.n, threads);
  // (Fewer threads where every thread's image would pass the scratch bound.)
  team = static_cast<int>(std::clamp<size_t>((kScratchBound - weights_bytes) / thread_bytes, 1, team));
  bytes = weights_bytes + thread_bytes * static_cast<size_t>(team);
}

void conv2d_direct_backward_data_avx512(const core::Conv2dArgs &a,
                                        const DirectBackwardDataPlan &plan, void *scratch) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t khw = d.kh * d.kw, plane = d.h * d.w, dst_plane = a.oh * a.ow;
  const int64_t reach_h = (d.kh - 1) * d.dilation_h, reach_w = (d.kw - 1) * d.dilation_w;
  const int64_t blocks = (d.c + kMaxChannels - 1) / kMaxChannels;
  const auto *weights = static_cast<const float *>(a.weights);
  const auto *diff_dst = static_cast<const float *>(a.diff_dst);
  auto *diff_src = static_cast<float *>(a.diff_src);
  float *turned = static_cast<float *>(scratch);
  // Block b holds channels [c0, c1): d.k x khw taps of c1 - c0 weights, from
  // c0 x d.k x khw on.
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t c0 = d.c * b / blocks, c1 = d.c * (b + 1) / blocks, width = c1 - c0;
    for (int64_t kk = 0; kk < d.k; ++kk)
      for (int64_t tap = 0; tap < khw; ++tap)
        for (int64_t ci = 0; ci < width; ++ci)
          turned[c0 * d.k * khw + (kk * khw + tap) * width + ci] =
              weights[(kk * d.c + c0 + ci) * khw + tap];
  }
  const Taps taps{d.k, d.kh, d.kw, d.dilation_h, d.dilation_w, plan.hp * plan.wp, plan.wp};
  const int64_t top = reach_h - d.pad_h, left = reach_w - d.pad_w;  // diff_dst's place

  parallel_for(plan.team, plan.team, [&](int64_t part, int) {
    float *padded = turned + plan.weights_floats + plan.padded_floats * part;
    std::fill_n(padded, plan.padded_floats, 0.0f);  // the border stays zero
    for (int64_t image = d.n * part / plan.team; image < d.n * (part + 1) / plan.team; ++image) {
      for (int64_t kk = 0; kk < d.k; ++kk)
        for (int64_t y = 0; y < a.oh; ++y)
          std::copy_n(diff_dst + (image * d.k + kk) * dst_plane + y * a.ow, a.ow,
                      padded + kk * taps.plane + (top + y) * plan.wp + left);
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t c0 = d.c * b / blocks, width = d.c * (b + 1) / blocks - c0;
        const float *block_weights = turned + c0 * d.k * khw;
        for (int64_t y = 0; y < d.h; y += 2) {
          const int rows = static_cast<int>(std::min<int64_t>(2, d.h - y));
          for (int64_t x = 0; x < d.w; x += 16) {
            const int64_t n = std::min<int64_t>(16, d.w - x);
            const auto lanes = static_cast<__mmask16>((1u << n) - 1);
            kBlocks[static_cast<size_t>(width - 1)][static_cast<size_t>(rows - 1)](
                padded + (y + reach_h) * plan.wp + x + reach_w, block_weights, taps, lanes,
                diff_src + ((image * d.c + c0) * d.h + y) * d.w + x, d.w, plane);
          }
        }
      }
    }
  });
}

}  // namespace dlk::cpu::kernels
