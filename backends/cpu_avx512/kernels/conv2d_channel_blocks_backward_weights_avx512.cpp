// kernels/conv2d_direct_backward_weights_kernels.hpp's backward weights for
// many output channels in AVX-512 steps. A unit of work is a block of up to 32
// output channels (V = 2 vectors of lanes, 1 where the block has at most 16)
// and a run of kernel rows (ci, r); per image (zero-padded into the thread's
// scratch where there is padding) and band of block_rows output rows, the
// block's diff_dst is turned pixel-major, and the kernel rows are then taken R
// at a time: R x kw x V sums stay in registers over the band's pixels, each
// pixel two loads of diff_dst and, per tap, a broadcast of the input value it
// reads and V multiply-adds. The sums of the unit's taps live in the thread's
// scratch between bands and are written into the block's rows of diff_weights
// after the last image.
#include "common/immintrin.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <utility>

#include "backends/cpu_avx512/cpu_peak.hpp"
#include "backends/cpu_avx512/float_storage.hpp"
#include "backends/cpu_avx512/kernels/conv2d_direct_backward_weights_kernels.hpp"
#include "backends/cpu_avx512/kernels/pixel_major_avx512.hpp"
#include "backends/cpu_avx512/kernels/transpose16_avx512.hpp"
#include "backends/cpu_avx512/kernels/transpose_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu::kernels {
namespace {

constexpr int64_t kBlock = 32;  // output channels of a unit
constexpr int kMaxSums = kChannelBlockMaxSums;
constexpr int max_rows(int kw, int v) { return kMaxSums / (kw * v); }
// Output pixels of a band: its pixel-major diff_dst (32 floats a pixel) in
// 32 KiB, within L1 beside the input rows it meets.
constexpr int64_t kBandPixels = 256;
// The sums of the units a thread takes at a time (each image is padded once
// for them): within L2 (2 MiB a core on Intel Xeon model 207) beside the
// image's rows. All of a thread's units at once, res5b's 9.4 MB of sums (512 x
// 4608 taps) went to L3 and back at 1 thread: 44 GFLOP/s against the GEMM's
// 81 in the same run; one unit at a time would pad each image once per unit.
constexpr int64_t kGroupSumsBytes = int64_t{1} << 20;
// Output pixels of a thread's share of the batch below which the threads take
// units, not images: split by images, each thread's sums of every unit (k x
// taps) are added up after, a pass over memory that at ResNet-50 res5b's 49
// pixels an image (784 a thread at batch 32 on 2 threads, 9.4 MB of sums a
// thread) cost more than the image copies it saved (bf16 0.82-0.89x; res4b,
// 3136 a thread, level; AMD EPYC Zen 5).
constexpr int64_t kMinPixelsPerThreadOverImages = 2048;

// sums[t][V x 16] += image[offsets[t / KW] + t % KW + pixel's origin] x the
// pixel's diff_dst (V vectors at pixel_major, pixel_step floats a pixel),
// over `rows` output rows of ow pixels (origins row_step and col_step apart),
// t < R x KW.
template <int KW, int R, int V>
void sum_rows(const float *image, const int64_t *offsets, const float *pixel_major,
              int64_t pixel_step, int64_t rows, int64_t ow, int64_t row_step, int64_t col_step,
              float *sums) {
  constexpr int T = R * KW;
  __m512 acc[T][V];
  int64_t off[R];
  // (Unrolled, or GCC keeps the sums in memory: a load and a store per tap.)
#pragma GCC unroll 32
  for (int t = 0; t < T; ++t)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) acc[t][v] = _mm512_load_ps(sums + (t * V + v) * 16);
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i) off[i] = offsets[i];
  const float *g = pixel_major;
  for (int64_t oy = 0; oy < rows; ++oy) {
    const float *row = image + oy * row_step;
    for (int64_t ox = 0; ox < ow; ++ox, g += pixel_step) {
      __m512 gv[V];
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) gv[v] = _mm512_loadu_ps(g + 16 * v);
      const float *in = row + ox * col_step;
#pragma GCC unroll 16
      for (int i = 0; i < R; ++i) {
        const float *p = in + off[i];
#pragma GCC unroll 8
        for (int s = 0; s < KW; ++s) {
          const __m512 x = _mm512_set1_ps(p[s]);
#pragma GCC unroll 2
          for (int v = 0; v < V; ++v)
            acc[i * KW + s][v] = _mm512_fmadd_ps(x, gv[v], acc[i * KW + s][v]);
        }
      }
    }
  }
#pragma GCC unroll 32
  for (int t = 0; t < T; ++t)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) _mm512_store_ps(sums + (t * V + v) * 16, acc[t][v]);
}

using SumRows = void (*)(const float *, const int64_t *, const float *, int64_t, int64_t, int64_t,
                         int64_t, int64_t, float *);
template <int KW, int V, int... I>
constexpr auto sum_rows_table(std::integer_sequence<int, I...>) {
  return std::array<SumRows, sizeof...(I)>{sum_rows<KW, I + 1, V>...};
}
template <int KW, int V>
constexpr auto kSumRows = sum_rows_table<KW, V>(std::make_integer_sequence<int, max_rows(KW, V)>());

// The kernel for R rows (1 <= R <= max_rows(kw, v)).
SumRows sum_rows_for(int64_t kw, int v, int64_t r) {
  const auto i = static_cast<size_t>(r - 1);
  if (kw == 3) return v == 2 ? kSumRows<3, 2>[i] : kSumRows<3, 1>[i];
  if (kw == 5) return v == 2 ? kSumRows<5, 2>[i] : kSumRows<5, 1>[i];
  return v == 2 ? kSumRows<7, 2>[i] : kSumRows<7, 1>[i];
}

int64_t floats_aligned(int64_t floats) { return (floats + 15) / 16 * 16; }

}  // namespace

ChannelBlocksBackwardWeightsPlan::ChannelBlocksBackwardWeightsPlan(const core::Conv2dArgs &a,
                                                                   int threads) {
  const dlk_conv2d_desc &d = a.desc;
  blocks = (d.k + kBlock - 1) / kBlock;
  const int64_t t = std::max(threads, 1), kernel_rows = d.c * d.kh;
  pairs = d.src_type == DLK_DTYPE_BF16 && bf16_dot_outpaces_fma(core::cpu_features());
  nhwc = d.format == DLK_FORMAT_NHWC;
  const bool widened = d.src_type != DLK_DTYPE_F32 && !pairs;
  dst_in_place = nhwc && d.src_type == DLK_DTYPE_F32 && d.k % 16 == 0;
  if (d.pad_h != 0 || d.pad_w != 0 || widened || pairs || nhwc) {
    hp = d.h + 2 * d.pad_h, wp = d.w + 2 * d.pad_w + (pairs ? 2 : 0);
    padded_floats = floats_aligned(pairs ? (d.c * hp * wp + 1) / 2 : d.c * hp * wp);
  }
  block_rows = std::clamp<int64_t>(kBandPixels / std::max<int64_t>(a.ow, 1), 1,
                                   std::max<int64_t>(a.oh, 1));
  // A band row's pixel-major vectors: one a pixel, or a pair.
  if (!dst_in_place) pixel_major_floats = block_rows * (pairs ? (a.ow + 1) / 2 : a.ow) * kBlock;
  if (nhwc && d.src_type != DLK_DTYPE_F32)
    staged_floats = floats_aligned((d.c * d.w + 1) / 2);
  else if (!nhwc && (widened || pairs))
    staged_floats = pixel_major_floats;
  // Threads take shares of the batch where it divides among them (or is
  // large enough that the remainder weighs little), each summing every unit
  // into sums of its own, added up afterwards: taking units, each thread
  // padded (NHWC: turned) every image for its own, at batch 32 on 2 threads a
  // second copy for the same sums (bf16 NHWC res2a 62 % of the peak on 2
  // threads, 75 % on 1). Else threads take units: with fewer blocks than
  // threads, or blocks that do not divide among them (and few enough that the
  // remainder weighs), the kernel rows are shared too.
  const auto settle = [&](bool images) {
    over_images = images;
    parts = images || blocks % t == 0 || blocks >= 4 * t ? 1 : std::min(t, kernel_rows);
    units = blocks * parts;
    team = team_size(images ? d.n : units, threads);
    unit_sums_floats = ((kernel_rows + parts - 1) / parts * d.kw + 1) * kBlock;  // and the bias's
    // Units a thread sums at a time: their sums within kGroupSumsBytes.
    group = std::max<int64_t>(1, kGroupSumsBytes / (unit_sums_floats * 4));
    const auto group_for = [&](int64_t team_size) {
      return std::min(group, (units + team_size - 1) / team_size);
    };
    const auto bytes_for = [&](int64_t team_size) {
      return static_cast<size_t>((images ? units : group_for(team_size)) * unit_sums_floats +
                                 pixel_major_floats + staged_floats + padded_floats) *
             sizeof(float);
    };
    // (Fewer threads where every thread's share would pass the scratch bound.)
    while (team > 1 && bytes_for(team) * static_cast<size_t>(team) > kScratchBound) --team;
    group = images ? std::min(group, units) : group_for(team);
    thread_bytes = bytes_for(team);
    bytes = thread_bytes * static_cast<size_t>(team);
  };
  settle(t > 1 && (d.n % t == 0 || d.n >= 4 * t) &&
         d.n * a.oh * a.ow / t >= kMinPixelsPerThreadOverImages);
  if (over_images && team < t) settle(false);
}

bool conv2d_channel_blocks_backward_weights_applies(const core::Conv2dArgs &a, int threads,
                                                    bool of_group) {
  const dlk_conv2d_desc &d = a.desc;
  const bool dtype = d.src_type == DLK_DTYPE_F32 || d.src_type == DLK_DTYPE_F16 ||
                     d.src_type == DLK_DTYPE_BF16;
  const bool pairs = d.src_type == DLK_DTYPE_BF16 && bf16_dot_outpaces_fma(core::cpu_features());
  if (!dtype || (d.format != DLK_FORMAT_NCHW && d.format != DLK_FORMAT_NHWC) || d.groups != 1 ||
      d.k < (of_group ? 16 : 17) || (pairs && d.stride_w > 2) ||
      (d.kw != 3 && d.kw != 5 && d.kw != 7) ||
      d.dilation_w != 1 ||
      (d.src_type != DLK_DTYPE_BF16 && d.n * a.oh * a.ow < kMinChannelBlockPixels))
    return false;
  // (Validation bounds the padding only through the output size.)
  const int64_t limit = int64_t{1} << 24;
  if (d.pad_h >= limit || d.pad_w >= limit || d.h >= limit || d.w >= limit ||
      d.c * d.kh >= limit || a.ow >= limit)
    return false;
  const ChannelBlocksBackwardWeightsPlan plan(a, threads);
  // pairs at stride 2: each image is split into its phases once per group of
  // units; where a group is one unit and a thread has several (ResNet-50
  // res5a: 4608 taps x 32 sums fill 590 KB of Zen 5's 1 MiB L2), the split of
  // a 512 x 14 x 14 image came every 14 MFLOP and res5a ran 0.60x oneDNN-any at
  // batch 32 (2 threads), where the GEMM runs 1.00x.
  if (plan.pairs && d.stride_w == 2 && plan.group == 1 &&
      plan.units > (plan.over_images ? 1 : plan.team))
    return false;
  return plan.bytes <= kScratchBound;
}

namespace {

#include "backends/cpu_avx512/kernels/bf16_round_avx512.inc"

// diff_weights' rows k0 .. k0 + kn of taps [t0, t1) from sums[t - t0][lanes],
// 16 taps x 16 channels at a time through a register transpose (one scalar
// store per element took longer than the sums on res5b: 49 pixels).
// f16/bf16 rounded once from the f32 sums, bf16 a vector at a time (element
// by element the rounding took a third of res5b's bf16 weight gradient on
// Zen 4).
template <class Storage>
void store_rows(const float *sums, int64_t lanes, int64_t kn, int64_t t0, int64_t t1,
                int64_t taps, typename Storage::type *diff_weights) {
  for (int64_t h = 0; h * 16 < kn; ++h) {
    const int64_t channels = std::min<int64_t>(16, kn - h * 16);
    for (int64_t t = t0; t < t1; t += 16) {
      const int64_t n = std::min<int64_t>(16, t1 - t);
      __m512 r[16];
#pragma GCC unroll 16
      for (int64_t j = 0; j < 16; ++j)
        r[j] = j < n ? _mm512_load_ps(sums + (t - t0 + j) * lanes + h * 16) : _mm512_setzero_ps();
      transpose16(r);
      const __mmask16 mask = static_cast<__mmask16>((1u << n) - 1);
      for (int64_t o = 0; o < channels; ++o) {
        if constexpr (std::is_same_v<typename Storage::type, float>) {
          _mm512_mask_storeu_ps(diff_weights + (h * 16 + o) * taps + t, mask, r[o]);
        } else if constexpr (std::is_same_v<Storage, FloatStorage<DLK_DTYPE_BF16>>) {
          _mm512_mask_cvtepi32_storeu_epi16(diff_weights + (h * 16 + o) * taps + t, mask,
                                            round_to_bf16_lanes(r[o]));
        } else {
          alignas(64) float row[16];
          _mm512_store_ps(row, r[o]);
          for (int64_t j = 0; j < n; ++j)
            diff_weights[(h * 16 + o) * taps + t + j] = Storage::store(row[j]);
        }
      }
    }
  }
}

// A unit's output channels [k0, k0 + kn) (v vectors of lanes) and kernel rows
// [q0, q1) (kernel row q: input channel q / kh, kernel row q % kh).
struct Unit {
  int64_t k0, kn, q0, q1;
  int v;
};

// Calls sum(r0, r1, offsets) for the unit's kernel rows in chunks of at most
// max_rows(kw, v), offsets[q - r0] where kernel row q starts in the image
// (in_plane elements a channel, in_w a row).
template <class Sum>
void for_row_chunks(const dlk_conv2d_desc &d, const Unit &un, int64_t in_plane, int64_t in_w,
                    Sum &&sum) {
  const int64_t r_max = max_rows(static_cast<int>(d.kw), un.v);
  const int64_t chunks = (un.q1 - un.q0 + r_max - 1) / r_max;
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t r0 = un.q0 + (un.q1 - un.q0) * c / chunks;
    const int64_t r1 = un.q0 + (un.q1 - un.q0) * (c + 1) / chunks;
    int64_t offsets[kMaxSums];
    for (int64_t q = r0; q < r1; ++q)
      offsets[q - r0] = q / d.kh * in_plane + q % d.kh * d.dilation_h * in_w;
    sum(r0, r1, offsets);
  }
}

// bias[v x 16] += the sum of `pixels` runs of v x 16 floats at g, `step` apart.
void add_pixel_sums(const float *g, int64_t step, int64_t pixels, int v, float *bias) {
  for (int h = 0; h < v; ++h) {
    __m512 sum = _mm512_setzero_ps();
    for (int64_t p = 0; p < pixels; ++p)
      sum = _mm512_add_ps(sum, _mm512_loadu_ps(g + p * step + 16 * h));
    _mm512_store_ps(bias + 16 * h, _mm512_add_ps(_mm512_load_ps(bias + 16 * h), sum));
  }
}

// NCHW pairs: a band of `rows` output rows of the unit's kn planes of bf16
// diff_dst at dy, staged with its rows made even (a zero gradient for the
// dummy pixel of an odd row), turned pair-major (32-bit pairs through the f32
// transposes, bits as they are).
void nchw_pair_major(const uint16_t *dy, int64_t pixels, int64_t ow, int64_t kn, int v, int64_t oy0,
                     int64_t rows, uint16_t *staged, uint32_t *pair_major) {
  const int64_t pairs = (ow + 1) / 2;
  const int64_t band_stride = rows * pairs;  // 32-bit elements a channel
  for (int64_t o = 0; o < kn; ++o)
    for (int64_t y = 0; y < rows; ++y) {
      uint16_t *out = staged + (o * band_stride + y * pairs) * 2;
      std::memcpy(out, dy + o * pixels + (oy0 + y) * ow, static_cast<size_t>(ow) * 2);
      if (ow % 2 != 0) out[ow] = 0;
    }
  const float *band_dy = reinterpret_cast<const float *>(staged);
  for (int h = 0; h < v; ++h)
    to_pixel_major<false>(band_dy + h * 16 * band_stride, band_stride,
                          std::min<int64_t>(16, kn - h * 16), band_stride,
                          reinterpret_cast<float *>(pair_major) + h * 16, 16 * v);
}

// NHWC pairs: the same from the band's pixels (dy: the unit's first channel
// at the band's first pixel, k apart), two pixels' channels interleaved.
void nhwc_pair_major(const uint16_t *dy, int64_t k, int64_t ow, int64_t kn, int v, int64_t rows,
                     uint32_t *pair_major) {
  const int64_t pairs = (ow + 1) / 2;
  for (int64_t y = 0; y < rows; ++y)
    for (int64_t q = 0; q < pairs; ++q) {
      const uint16_t *first = dy + (y * ow + 2 * q) * k;
      const bool second = 2 * q + 1 < ow;  // else the dummy's zero
      uint32_t *out = pair_major + (y * pairs + q) * 16 * v;
      for (int h = 0; h < v; ++h) {
        const uint16_t *a = first + 16 * h, *b = a + k;
        if (kn - 16 * h >= 16) {
          const __m512i lo =
              _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(a)));
          const __m512i hi =
              second
                  ? _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(b)))
                  : _mm512_setzero_si512();
          _mm512_store_si512(out + 16 * h, _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
          continue;
        }
        for (int64_t o = 0; o < 16; ++o)
          out[16 * h + o] = o < kn - 16 * h ? a[o] | (second ? uint32_t{b[o]} << 16 : 0u) : 0u;
      }
    }
}

// NHWC, not in place: `pixels` pixels' kn channels (dy: the unit's first
// channel at the first pixel, k apart) as f32 vectors, `lanes` floats a pixel
// at pixel_major, zeros past kn.
template <class Storage>
void nhwc_pixel_major(const typename Storage::type *dy, int64_t k, int64_t kn, int64_t pixels,
                      int64_t lanes, float *pixel_major) {
  for (int64_t p = 0; p < pixels; ++p) {
    const typename Storage::type *in = dy + p * k;
    float *out = pixel_major + p * lanes;
    if constexpr (std::is_same_v<typename Storage::type, float>) {
      for (int64_t h = 0; h < lanes; h += 16) {
        const int64_t n = std::clamp<int64_t>(kn - h, 0, 16);
        _mm512_store_ps(out + h,
                        _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1), in + h));
      }
    } else {
      for (int64_t o = 0; o < lanes; ++o) out[o] = o < kn ? Storage::load(in[o]) : 0.0f;
    }
  }
}

template <class Storage>
void channel_blocks(const core::Conv2dArgs &a, const ChannelBlocksBackwardWeightsPlan &plan,
                    void *scratch) {
  using T = typename Storage::type;
  constexpr bool f32 = std::is_same_v<T, float>;
  const dlk_conv2d_desc &d = a.desc;
  const int64_t kernel_rows = d.c * d.kh, taps = kernel_rows * d.kw;
  const int64_t pixels = a.oh * a.ow, plane = d.h * d.w;
  // (f16/bf16 and NHWC: always copied, widened to f32 or, in pairs, as they are.)
  const bool padded = plan.padded_floats != 0;
  const int64_t in_w = padded ? plan.wp : d.w, in_plane = padded ? plan.hp * plan.wp : plane;
  // pairs at stride 2: where the odd columns of a padded row start.
  const int64_t phase = (d.w + 2 * d.pad_w + 1) / 2;
  const auto *src = static_cast<const T *>(a.src);
  const auto *diff_dst = static_cast<const T *>(a.diff_dst);
  auto *diff_weights = static_cast<T *>(a.diff_weights);
  const auto unit_of = [&](int64_t u) {
    const int64_t block = u / plan.parts, part = u % plan.parts;
    const int64_t k0 = block * kBlock, kn = std::min(kBlock, d.k - k0);
    return Unit{k0, kn, kernel_rows * part / plan.parts, kernel_rows * (part + 1) / plan.parts,
                kn > 16 ? 2 : 1};
  };

  // Each thread a run of units, in groups whose sums stay in L2; each image is
  // padded once per group.
  const auto sums_of = [&](int64_t p) {
    return reinterpret_cast<float *>(static_cast<unsigned char *>(scratch) +
                                     plan.thread_bytes * static_cast<size_t>(p));
  };
  // Unit u's sums into diff_weights and diff_bias.
  const auto store_unit = [&](int64_t u, const float *unit_sums) {
    const Unit un = unit_of(u);
    store_rows<Storage>(unit_sums, 16 * un.v, un.kn, un.q0 * d.kw, un.q1 * d.kw, taps,
                        diff_weights + un.k0 * taps);
    if (a.diff_bias && un.q0 == 0)
      std::copy_n(unit_sums + (un.q1 - un.q0) * d.kw * 16 * un.v, un.kn, a.diff_bias + un.k0);
  };
  parallel_for(plan.team, plan.team, [&](int64_t p, int) {
    float *sums = sums_of(p);  // over_images: every unit's; else a group's
    float *pixel_major =
        sums + (plan.over_images ? plan.units : plan.group) * plan.unit_sums_floats;
    float *staged = pixel_major + plan.pixel_major_floats;
    float *image_copy = staged + plan.staged_floats;
    auto *x_pairs = reinterpret_cast<uint16_t *>(image_copy);
    // (The border stays zero: the copies below write only inside it.)
    if (padded) std::fill_n(image_copy, plan.padded_floats, 0.0f);
    // Row y of input channel ci (w values at in) into the padded image.
    const auto place_row = [&](const T *in, int64_t ci, int64_t y) {
      const int64_t at = ci * in_plane + (y + d.pad_h) * in_w;
      if (plan.pairs && d.stride_w == 2)  // (padded column x at x / 2 of its phase)
        channel_blocks_bf16_split_row(reinterpret_cast<const uint16_t *>(in), d.w, d.pad_w, phase,
                                      x_pairs + at);
      else if (plan.pairs)
        std::memcpy(x_pairs + at + d.pad_w, in, static_cast<size_t>(d.w) * 2);
      else
        for (int64_t e = 0; e < d.w; ++e) image_copy[at + d.pad_w + e] = Storage::load(in[e]);
    };
    const int64_t u_begin = plan.over_images ? 0 : plan.units * p / plan.team;
    const int64_t u_end = plan.over_images ? plan.units : plan.units * (p + 1) / plan.team;
    const int64_t i_begin = plan.over_images ? d.n * p / plan.team : 0;
    const int64_t i_end = plan.over_images ? d.n * (p + 1) / plan.team : d.n;
    for (int64_t g0 = u_begin; g0 < u_end; g0 += plan.group) {
      const int64_t g1 = std::min(u_end, g0 + plan.group);
      float *group_sums = plan.over_images ? sums + g0 * plan.unit_sums_floats : sums;
      std::fill_n(group_sums, (g1 - g0) * plan.unit_sums_floats, 0.0f);
      // The input channels the units' kernel rows read.
      int64_t ci0 = d.c, ci1 = 0;
      for (int64_t u = g0; u < g1; ++u) {
        const Unit un = unit_of(u);
        ci0 = std::min(ci0, un.q0 / d.kh), ci1 = std::max(ci1, (un.q1 + d.kh - 1) / d.kh);
      }
      for (int64_t image = i_begin; image < i_end; ++image) {
        const T *image_src = src + image * d.c * plane;
        if (plan.nhwc) {
          // Each row's channels turned channel-major: into place where the
          // image holds them as they are (f32, bf16 pairs at stride 1), else
          // through `staged`.
          for (int64_t y = 0; y < d.h; ++y) {
            const T *row = image_src + y * d.w * d.c + ci0;
            const int64_t at = ci0 * in_plane + (y + d.pad_h) * in_w + d.pad_w;
            if (f32 || (plan.pairs && d.stride_w != 2)) {
              transpose_avx512(row, d.w, ci1 - ci0, d.c, sizeof(T),
                               f32 ? static_cast<void *>(image_copy + at) : x_pairs + at, in_plane);
            } else {
              auto *turned = reinterpret_cast<T *>(staged);
              transpose_avx512(row, d.w, ci1 - ci0, d.c, sizeof(T), turned, d.w);
              for (int64_t ci = ci0; ci < ci1; ++ci) place_row(turned + (ci - ci0) * d.w, ci, y);
            }
          }
        } else if (padded) {
          for (int64_t ci = ci0; ci < ci1; ++ci)
            for (int64_t y = 0; y < d.h; ++y) place_row(image_src + ci * plane + y * d.w, ci, y);
        }
        const float *x = padded ? image_copy : reinterpret_cast<const float *>(image_src);
        for (int64_t u = g0; u < g1; ++u) {
          const Unit un = unit_of(u);
          const int64_t lanes = 16 * un.v;
          float *unit_sums = group_sums + (u - g0) * plan.unit_sums_floats;
          float *bias = unit_sums + (un.q1 - un.q0) * d.kw * lanes;
          // The unit's diff_dst: its first channel's plane (NCHW) or its
          // first channel at the image's first pixel (NHWC).
          const T *dy = plan.nhwc ? diff_dst + image * pixels * d.k + un.k0
                                  : diff_dst + (image * d.k + un.k0) * pixels;
          for (int64_t oy0 = 0; oy0 < a.oh; oy0 += plan.block_rows) {
            const int64_t rows = std::min(plan.block_rows, a.oh - oy0);
            const T *band_nhwc = dy + oy0 * a.ow * d.k;
            if (plan.pairs) {
              auto *pair_major = reinterpret_cast<uint32_t *>(pixel_major);
              if (plan.nhwc)
                nhwc_pair_major(reinterpret_cast<const uint16_t *>(band_nhwc), d.k, a.ow, un.kn,
                                un.v, rows, pair_major);
              else
                nchw_pair_major(reinterpret_cast<const uint16_t *>(dy), pixels, a.ow, un.kn, un.v,
                                oy0, rows, reinterpret_cast<uint16_t *>(staged), pair_major);
              channel_blocks_bf16_pair_bias(pair_major, rows * ((a.ow + 1) / 2), un.v, bias);
              const uint16_t *band = x_pairs + oy0 * d.stride_h * in_w;
              for_row_chunks(d, un, in_plane, in_w,
                             [&](int64_t r0, int64_t r1, const int64_t *offsets) {
                               channel_blocks_bf16_pair_rows(d.kw, un.v, r1 - r0, d.stride_w == 2)(
                                   band, offsets, pair_major, rows, a.ow, d.stride_h * in_w, phase,
                                   unit_sums + (r0 - un.q0) * d.kw * lanes);
                             });
              continue;
            }
            // The band's pixel-major diff_dst: g, g_step floats a pixel.
            const float *g = pixel_major;
            int64_t g_step = lanes;
            if (plan.dst_in_place) {
              g = reinterpret_cast<const float *>(band_nhwc), g_step = d.k;
              add_pixel_sums(g, g_step, rows * a.ow, un.v, bias);
            } else if (plan.nhwc) {
              nhwc_pixel_major<Storage>(band_nhwc, d.k, un.kn, rows * a.ow, lanes, pixel_major);
              add_pixel_sums(g, g_step, rows * a.ow, un.v, bias);
            } else {
              // The band's planes of the unit's channels, in f32.
              const float *band_dy = reinterpret_cast<const float *>(dy + oy0 * a.ow);
              int64_t band_stride = pixels;
              if constexpr (!f32) {
                for (int64_t o = 0; o < un.kn; ++o)
                  for (int64_t e = 0; e < rows * a.ow; ++e)
                    staged[o * rows * a.ow + e] = Storage::load(dy[o * pixels + oy0 * a.ow + e]);
                band_dy = staged, band_stride = rows * a.ow;
              }
              for (int h = 0; h < un.v; ++h) {
                const __m512 b = to_pixel_major(band_dy + h * 16 * band_stride, band_stride,
                                                std::min<int64_t>(16, un.kn - h * 16), rows * a.ow,
                                                pixel_major + h * 16, lanes);
                _mm512_store_ps(bias + 16 * h, _mm512_add_ps(_mm512_load_ps(bias + 16 * h), b));
              }
            }
            const float *band = x + oy0 * d.stride_h * in_w;
            for_row_chunks(
                d, un, in_plane, in_w, [&](int64_t r0, int64_t r1, const int64_t *offsets) {
                  sum_rows_for(d.kw, un.v, r1 - r0)(band, offsets, g, g_step, rows, a.ow,
                                                    d.stride_h * in_w, d.stride_w,
                                                    unit_sums + (r0 - un.q0) * d.kw * lanes);
                });
          }
        }
      }
      if (!plan.over_images)
        for (int64_t u = g0; u < g1; ++u)
          store_unit(u, group_sums + (u - g0) * plan.unit_sums_floats);
    }
  });
  if (!plan.over_images) return;
  // The threads' sums added into the first's, a unit per task.
  parallel_for(plan.units, plan.team, [&](int64_t u, int) {
    const int64_t at = u * plan.unit_sums_floats;
    float *total = sums_of(0) + at;
    for (int p = 1; p < plan.team; ++p) {
      const float *add = sums_of(p) + at;
      for (int64_t e = 0; e < plan.unit_sums_floats; ++e) total[e] += add[e];
    }
    store_unit(u, total);
  });
}

}  // namespace

void conv2d_channel_blocks_backward_weights_avx512(const core::Conv2dArgs &args,
                                                   const ChannelBlocksBackwardWeightsPlan &plan,
                                                   void *scratch) {
  with_float_storage(args.desc.src_type,
                     [&](auto storage) { channel_blocks<decltype(storage)>(args, plan, scratch); });
}

}  // namespace dlk::cpu::kernels
