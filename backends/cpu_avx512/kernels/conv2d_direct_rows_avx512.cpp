// kernels/conv2d_direct_rows_kernels.hpp in AVX-512 steps. The weights are
// turned once per call into blocks of up to kMaxChannels output channels,
// tap-major ([input channel][kh][kw][channels of the block]); each thread
// copies its images one at a time into its zero-padded planes and runs the
// blocks of channels x 2 rows x 16 columns over them, each stored once (masked
// past the row's end, bias and ReLU applied), so the output needs no zeroing.
#include <algorithm>
#include <array>

#include "backends/cpu_avx512/kernels/conv2d_direct_rows_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

// Channels of a block: 2 rows x 8 sums, 8 broadcast weights and 2 input rows
// in the 32 registers.
constexpr int kMaxChannels = 8;

// Where a block's taps read: tap (r, s) of input channel i reads origin + i x
// plane + r x row_step + s x col_step (forward: steps of +dilation; backward
// data, the turned weights: -dilation); the block's second row reads wp
// further.
struct Taps {
  int64_t channels, kh, kw, row_step, col_step, plane, wp;
  int64_t r0 = 0, r1 = 0;  // the kernel rows [r0, r1) that read inside the image
};

// Output channels [0, C) x rows [0, R) x the `lanes` of 16 columns at `out`
// (rows out_row apart, channels out_plane apart): the sums over all taps of
// the kernel rows [t.r0, t.r1) (the others read only padding), then
// + bias[c] where bias is not null, then ReLU where asked (as max(+0, v), which
// keeps NaN and -0 as the scalar v < 0 ? 0 : v does).
template <int C, int R>
void block(const float *origin, const float *weights, const Taps &t, __mmask16 lanes,
           const float *bias, bool relu, float *out, int64_t out_row, int64_t out_plane) {
  __m512 acc[C][R];
#pragma GCC unroll 8
  for (int c = 0; c < C; ++c)
#pragma GCC unroll 2
    for (int j = 0; j < R; ++j) acc[c][j] = _mm512_setzero_ps();
  for (int64_t i = 0; i < t.channels; ++i)
    for (int64_t r = t.r0; r < t.r1; ++r) {
      const float *row = origin + i * t.plane + r * t.row_step;
      const float *w = weights + (i * t.kh + r) * t.kw * C;
      for (int64_t s = 0; s < t.kw; ++s, w += C) {
        __m512 x[R];
#pragma GCC unroll 2
        for (int j = 0; j < R; ++j) x[j] = _mm512_maskz_loadu_ps(lanes, row + j * t.wp + s * t.col_step);
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
    for (int j = 0; j < R; ++j) {
      __m512 v = acc[c][j];
      if (bias) v = _mm512_add_ps(v, _mm512_set1_ps(bias[c]));
      if (relu) v = _mm512_max_ps(_mm512_setzero_ps(), v);
      _mm512_mask_storeu_ps(out + c * out_plane + j * out_row, lanes, v);
    }
}

using Block = void (*)(const float *, const float *, const Taps &, __mmask16, const float *, bool,
                       float *, int64_t, int64_t);
template <int C>
constexpr std::array<Block, 2> blocks_of() {
  return {block<C, 1>, block<C, 2>};
}
constexpr std::array<std::array<Block, 2>, kMaxChannels> kBlocks = {
    blocks_of<1>(), blocks_of<2>(), blocks_of<3>(), blocks_of<4>(),
    blocks_of<5>(), blocks_of<6>(), blocks_of<7>(), blocks_of<8>()};

int64_t floats_aligned(int64_t floats) { return (floats + 15) / 16 * 16; }

// What a pass reads and writes, in the forward's terms: `in` (in_channels
// planes of h x w per image) copied at (top, left) into padded planes of hp x
// wp; `out` (out_channels planes of oh x ow per image) from blocks whose
// first row and column read the padded planes at `origin` (row origin_row),
// tap row r r x r_step rows further; turned[c0 x
// in_channels x khw + (i x khw + tap) x width + cc] is weight(c0 + cc, i, tap).
struct Pass {
  const float *in;
  int64_t in_channels, h, w, top, left;
  float *out;
  int64_t out_channels, oh, ow, origin, origin_row, r_step;
  Taps taps;
  const float *bias;
  bool relu;
};

template <class Weight>
void turn_weights(int64_t out_channels, int64_t in_channels, int64_t khw, Weight weight,
                  float *turned) {
  const int64_t blocks = (out_channels + kMaxChannels - 1) / kMaxChannels;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t c0 = out_channels * b / blocks, width = out_channels * (b + 1) / blocks - c0;
    for (int64_t i = 0; i < in_channels; ++i)
      for (int64_t tap = 0; tap < khw; ++tap)
        for (int64_t cc = 0; cc < width; ++cc)
          turned[c0 * in_channels * khw + (i * khw + tap) * width + cc] = weight(c0 + cc, i, tap);
  }
}

void run(const Pass &p, int64_t images, const DirectRowsPlan &plan, float *turned) {
  const int64_t khw = p.taps.kh * p.taps.kw, blocks = (p.out_channels + kMaxChannels - 1) / kMaxChannels;
  parallel_for(plan.team, plan.team, [&](int64_t part, int) {
    float *padded = turned + plan.weights_floats + plan.padded_floats * part;
    std::fill_n(padded, plan.padded_floats, 0.0f);  // the border stays zero
    for (int64_t image = images * part / plan.team; image < images * (part + 1) / plan.team;
         ++image) {
      for (int64_t i = 0; i < p.in_channels; ++i)
        for (int64_t y = 0; y < p.h; ++y)
          std::copy_n(p.in + ((image * p.in_channels + i) * p.h + y) * p.w, p.w,
                      padded + i * p.taps.plane + (p.top + y) * plan.wp + p.left);
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t c0 = p.out_channels * b / blocks,
                      width = p.out_channels * (b + 1) / blocks - c0;
        const float *block_weights = turned + c0 * p.in_channels * khw;
        const Block *run_block = kBlocks[static_cast<size_t>(width - 1)].data();
        for (int64_t y = 0; y < p.oh; y += 2) {
          const int rows = static_cast<int>(std::min<int64_t>(2, p.oh - y));
          // Kernel rows that read an image row for either output row (LeNet-5
          // conv2's backward data: 27 of 35 per pair of rows, the rest padding).
          Taps taps = p.taps;
          taps.r0 = p.taps.kh, taps.r1 = 0;
          for (int64_t r = 0; r < p.taps.kh; ++r)
            for (int64_t j = 0; j < rows; ++j) {
              const int64_t row = p.origin_row + y + j + r * p.r_step;
              if (row >= p.top && row < p.top + p.h)
                taps.r0 = std::min(taps.r0, r), taps.r1 = std::max(taps.r1, r + 1);
            }
          for (int64_t x = 0; x < p.ow; x += 16) {
            const int64_t n = std::min<int64_t>(16, p.ow - x);
            run_block[rows - 1](padded + p.origin + y * plan.wp + x, block_weights, taps,
                                static_cast<__mmask16>((1u << n) - 1),
                                p.bias ? p.bias + c0 : nullptr, p.relu,
                                p.out + ((image * p.out_channels + c0) * p.oh + y) * p.ow + x,
                                p.ow, p.oh * p.ow);
          }
        }
      }
    }
  });
}

}  // namespace

DirectRowsPlan::DirectRowsPlan(const core::Conv2dArgs &a, int threads, bool backward_data) {
  const dlk_conv2d_desc &d = a.desc;
  if (backward_data) {  // diff_dst padded by the kernel's reach less the padding
    hp = d.h + (d.kh - 1) * d.dilation_h, wp = d.w + (d.kw - 1) * d.dilation_w;
    padded_floats = floats_aligned(d.k * hp * wp);
  } else {
    hp = d.h + 2 * d.pad_h, wp = d.w + 2 * d.pad_w;
    padded_floats = floats_aligned(d.c * hp * wp);
  }
  weights_floats = floats_aligned(d.k * d.c * d.kh * d.kw);
  const size_t weights_bytes = static_cast<size_t>(weights_floats) * 4;
  const size_t thread_bytes = static_cast<size_t>(padded_floats) * 4;
  team = team_size(d.n, threads);
  // (Fewer threads where every thread's image would pass the scratch bound.)
  team = static_cast<int>(
      std::clamp<size_t>((kScratchBound - weights_bytes) / thread_bytes, 1, team));
  bytes = weights_bytes + thread_bytes * static_cast<size_t>(team);
}

void conv2d_direct_rows_forward_avx512(const core::Conv2dArgs &a, const DirectRowsPlan &plan,
                                       void *scratch) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t khw = d.kh * d.kw;
  const auto *weights = static_cast<const float *>(a.weights);
  auto *turned = static_cast<float *>(scratch);
  turn_weights(d.k, d.c, khw,
               [&](int64_t o, int64_t i, int64_t tap) { return weights[(o * d.c + i) * khw + tap]; },
               turned);
  const Taps taps{d.c, d.kh, d.kw, d.dilation_h * plan.wp, d.dilation_w, plan.hp * plan.wp, plan.wp};
  const Pass pass{static_cast<const float *>(a.src), d.c, d.h, d.w, d.pad_h, d.pad_w,
                  static_cast<float *>(a.dst), d.k, a.oh, a.ow, 0, 0, d.dilation_h, taps,
                  a.bias, d.relu != 0};
  run(pass, d.n, plan, turned);
}

void conv2d_direct_backward_data_avx512(const core::Conv2dArgs &a, const DirectRowsPlan &plan,
                                        void *scratch) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t khw = d.kh * d.kw;
  const int64_t reach_h = (d.kh - 1) * d.dilation_h, reach_w = (d.kw - 1) * d.dilation_w;
  const auto *weights = static_cast<const float *>(a.weights);
  auto *turned = static_cast<float *>(scratch);
  // Output channel o of this pass is src's channel, input channel i diff_dst's.
  turn_weights(d.c, d.k, khw,
               [&](int64_t o, int64_t i, int64_t tap) { return weights[(i * d.c + o) * khw + tap]; },
               turned);
  // diff_dst sits reach - pad into its padded planes; the first row and
  // column of a block read tap (0, 0) at their own place + the reach, and
  // tap (r, s) r x dilation rows and s x dilation columns before it.
  const Taps taps{d.k, d.kh, d.kw, -d.dilation_h * plan.wp, -d.dilation_w, plan.hp * plan.wp,
                  plan.wp};
  const Pass pass{static_cast<const float *>(a.diff_dst), d.k, a.oh, a.ow, reach_h - d.pad_h,
                  reach_w - d.pad_w, static_cast<float *>(a.diff_src), d.c, d.h, d.w,
                  reach_h * plan.wp + reach_w, reach_h, -d.dilation_h, taps, nullptr, false};
  run(pass, d.n, plan, turned);
}

}  // namespace dlk::cpu::kernels
