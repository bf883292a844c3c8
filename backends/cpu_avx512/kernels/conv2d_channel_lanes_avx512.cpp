// kernels/conv2d_channel_lanes_kernels.hpp's convolution in AVX-512 steps.
#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#include "backends/cpu_avx512/kernels/bf16_round_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_channel_lanes_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_direct_kernels.hpp"
#include "backends/cpu_avx512/kernels/gemm_store_kernels.hpp"
#include "backends/cpu_avx512/kernels/interleave_kernels.hpp"
#include "backends/cpu_avx512/kernels/transpose16_avx512.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/bf16_round_avx512.inc"
#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"

constexpr int64_t kBlock = 16 * kChannelLanesVectors;

#include "backends/cpu_avx512/kernels/conv2d_channel_lanes_tile_avx512.inc"

struct Fma : FloatSums {
  static __m512 madd(__m512 acc, __m512 a, __m512 b) { return _mm512_fmadd_ps(a, b, acc); }
};

// Where backward data's turned convolution puts W's taps: W's tap j (r kw +
// q of its kh x kw) of input unit u goes to packed tap first + u taps + index
// (NCHW, each unit's taps in a run) or first + index units + u (NHWC, taps
// outermost), first the first tap of j's phase (all taps at stride 1), taps
// the phase's kernel taps, index j's place in the phase's kernel turned
// around.
struct TurnedTap {
  int64_t first, taps, index;
};

// Block b of the packed weights: packed[t bw + o] = the weight of tap t and
// output channel 32 b + o for its bw (16 or 32) lanes, zeros past k. The
// weights as stored are `runs` runs of `run` taps each, output channel o's
// run g at weights + g run_stride + o row_stride, tap j of it tap g run + j,
// or where `turned` is given tap turned[j].first + g turned[j].taps +
// turned[j].index, and that tap to place[tap] where `place` is given; 16 x
// 16 pieces turned in registers.
struct WeightRuns {
  int64_t runs, run, run_stride, row_stride;
  const TurnedTap *turned;
  const int64_t *place;
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
          const int64_t tap = w.turned
                                  ? w.turned[j].first + g * w.turned[j].taps + w.turned[j].index
                                  : g * w.run + j;
          const int64_t t = w.place ? w.place[tap] : tap;
          _mm512_store_ps(packed + t * width + half, rows[j - j0]);
        }
      }
}

// Block b of backward data's NHWC weights turned: W in OHWI with d.c output
// and d.k input channels (W[o][r][q][32 b ..], the block's lanes, contiguous),
// W's tap j of unit u (input channel o of the turned convolution, or the pair
// 2u and 2u + 1 for bf16, interleaved into 32-bit elements) to packed tap
// turned[j].first + turned[j].index units + u; zeros past d.k.
void pack_block_turned_ohwi(const void *weights, const dlk_conv2d_desc &d, bool pairs,
                            int64_t units, const TurnedTap *turned, int64_t b, float *packed) {
  const int64_t o0 = kBlock * b, width = std::min<int64_t>(kBlock, (d.k - o0 + 15) / 16 * 16);
  const int64_t khw = d.kh * d.kw;
  for (int64_t j = 0; j < khw; ++j)
    for (int64_t u = 0; u < units; ++u) {
      float *to = packed + (turned[j].first + turned[j].index * units + u) * width;
      for (int64_t half = 0; half < width; half += 16) {
        if (!pairs) {
          _mm512_store_ps(to + half,
                          _mm512_maskz_loadu_ps(first_lanes(d.k - o0 - half),
                                                static_cast<const float *>(weights) +
                                                    (u * khw + j) * d.k + o0 + half));
          continue;
        }
        const auto *w = static_cast<const uint16_t *>(weights);
        const int64_t lanes = std::min<int64_t>(16, d.k - o0 - half);
        const auto widened = [&](int64_t o) {
          // (This file has AVX512F alone: no 16-bit masked load.)
          const uint16_t *from = w + (o * khw + j) * d.k + o0 + half;
          std::array<uint16_t, 16> some{};
          if (lanes < 16) std::copy(from, from + lanes, some.begin());
          const uint16_t *lanes16 = lanes < 16 ? some.data() : from;
          return _mm512_cvtepu16_epi32(
              _mm256_loadu_si256(reinterpret_cast<const __m256i *>(lanes16)));
        };
        // (d.c odd: the last pair's second channel zero.)
        const __m512i high = 2 * u + 1 < d.c ? _mm512_slli_epi32(widened(2 * u + 1), 16)
                                             : _mm512_setzero_si512();
        _mm512_store_si512(to + half, _mm512_or_si512(widened(2 * u), high));
      }
    }
}

// Rounding halves toward -inf and +inf (x may be negative: a phase's first
// row or column relative to the padding).
int64_t floor_half(int64_t x) { return x >= 0 ? x / 2 : -((1 - x) / 2); }
int64_t ceil_half(int64_t x) { return -floor_half(-x); }

// A phase's outputs by parity a of rows (or columns) of `out`: m in [first,
// last], output 2 m + a - pad.
struct PhaseSpan {
  int64_t first, last;
};
PhaseSpan phase_span(int64_t a, int64_t pad, int64_t out) {
  return {ceil_half(pad - a), floor_half(out - 1 + pad - a)};
}

// src's bytes: s8 is shifted by 128 into u8 (its zero point likewise); a
// 32-bit element holds 4 / elem channels (bf16 2, int8 4).
struct SrcBytes {
  explicit SrcBytes(const dlk_conv2d_desc &d)
      : shift(d.src_type == DLK_DTYPE_S8),
        zero_byte(static_cast<uint8_t>(d.src_zero_point)),
        zero_u8(static_cast<uint8_t>(shift ? zero_byte ^ 0x80u : zero_byte)),
        elem(static_cast<int64_t>(dlk_dtype_size(d.src_type))) {}
  bool shift;
  uint8_t zero_byte, zero_u8;
  int64_t elem;
};

}  // namespace

ChannelLanesPlan::ChannelLanesPlan(const core::Conv2dArgs &a, int threads, bool turned_args) {
  const dlk_conv2d_desc &d = a.desc;
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  turned = turned_args;
  phased = turned && d.stride_h == 2 && d.stride_w == 2;
  pairs = d.src_type == DLK_DTYPE_BF16;
  quads = d.src_type == DLK_DTYPE_U8 || d.src_type == DLK_DTYPE_S8;
  units = quads ? (d.c + 3) / 4 : pairs ? (d.c + 1) / 2 : d.c;
  blocks = (d.k + kBlock - 1) / kBlock;
  taps = units * d.kh * d.kw;
  weight_floats = blocks * kBlock * taps;
  // NHWC pixels 2^n KiB apart would put a tile's 14 pixels in few L1 sets
  // (res4a's 256 channels at stride 2: 14 lines in 2 sets of each row read);
  // 16 elements more spread them (res4a 0.92x -> 1.02x the GEMM at batch 1).
  pixel_floats = !nhwc ? 1 : units % 16 == 0 && units >= 128 ? units + 16 : units;
  skip_rows = !phased && (!quads || SrcBytes(d).zero_u8 == 0);
  if (!phased) {
    pad_top = d.pad_h, pad_left = d.pad_w;
    hp = (a.oh - 1) * d.stride_h + (d.kh - 1) * d.dilation_h + 1;
    wp = (a.ow - 1) * d.stride_w + (d.kw - 1) * d.dilation_w + 1;
  } else {
    // W's padding (the turned convolution's is kh - 1 - it), and the padded
    // image's rows and columns that every phase's taps reach: phase a's output
    // m reads diff_dst rows m - taps + 1 .. m.
    pad_h = d.kh - 1 - d.pad_h, pad_w = d.kw - 1 - d.pad_w;
    const auto reach = [](const int64_t by_parity[2], int64_t pad, int64_t out, int64_t &before) {
      int64_t last = 0;
      for (int64_t parity = 0; parity < 2; ++parity) {
        const PhaseSpan span = phase_span(parity, pad, out);
        before = std::max(before, by_parity[parity] - 1 - span.first);
        last = std::max(last, span.last);
      }
      return last + before + 1;
    };
    for (int64_t parity = 0; parity < 2; ++parity) {
      phase_kh[parity] = (d.kh - parity + 1) / 2;
      phase_kw[parity] = (d.kw - parity + 1) / 2;
    }
    hp = reach(phase_kh, pad_h, a.oh, pad_top);
    wp = reach(phase_kw, pad_w, a.ow, pad_left);
    for (int64_t phase = 1; phase < 4; ++phase)
      phase_first[phase] = phase_first[phase - 1] +
                           units * phase_kh[(phase - 1) / 2] * phase_kw[(phase - 1) % 2];
  }
  // How the threads share the work (see the header): an image each, a band
  // of rows each (where the rows split within a tenth and the padded image
  // outweighs the packed weights, or a copy per thread would pass a quarter
  // of the scratch's bound), else the whole image each.
  const int team = team_size(d.n, threads);
  images_per_thread = team > 1;
  const int band_team = images_per_thread || phased ? 1 : team_size(a.oh, threads);
  const int64_t band = (a.oh + band_team - 1) / band_team;
  const int64_t image = hp * wp * (nhwc ? pixel_floats : units);
  const int copying = images_per_thread ? 1 : team_size(blocks * a.oh, threads);
  const bool even = 10 * band * band_team <= 11 * a.oh;
  const bool copies_fit = copying * image * int64_t{sizeof(float)} <= int64_t{kScratchBound} / 4;
  if (band_team > 1 && ((even && image > weight_floats) || !copies_fit)) {
    bands = (a.oh + band - 1) / band;
    band_rows = band;
    hp = (band - 1) * d.stride_h + (d.kh - 1) * d.dilation_h + 1;
  } else {
    copies = copying;
  }
  buffers = images_per_thread ? team : std::max(bands, copies);
  plane = hp * wp;
  offsets_count = taps;
  // (NHWC with c not a whole number of pairs or quads, forward: grouped too;
  // turned, the packing pairs them.)
  ragged = nhwc && ((pairs && d.c % 2 != 0) || (quads && d.c % 4 != 0));
  paired_floats = ((pairs || quads) && !nhwc) || (ragged && !turned) ? d.k * taps : 0;
  starts_count = quads ? blocks * kBlock : 0;
  image_floats = nhwc ? plane * pixel_floats : units * plane;
  const bool staged = pairs || (quads && d.dst_type != DLK_DTYPE_S32) || (phased && !nhwc);
  stages = staged ? team_size(std::max(d.n, blocks * a.oh), threads) : 0;
  // phased: a row's two column phases, channel-major, half a row each.
  stage_floats = phased ? 2 * kBlock * ((a.ow + 1) / 2) : kBlock * a.ow;
  const auto floats = [](int64_t n) {
    return ScratchCarver::aligned(static_cast<size_t>(n) * sizeof(float));
  };
  weights_bytes = floats(weight_floats) + floats(paired_floats) + floats(starts_count);
  bytes = ScratchCarver::aligned(static_cast<size_t>(offsets_count) * sizeof(int32_t)) +
          weights_bytes + floats(image_floats) * static_cast<size_t>(buffers) +
          floats(stage_floats) * static_cast<size_t>(stages);
}

void conv2d_channel_lanes_pack_weights(const core::Conv2dArgs &a, int threads,
                                       const ChannelLanesPlan &p, float *packed,
                                       int32_t *starts, uint32_t *paired) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t khw = d.kh * d.kw;
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  // Where W's taps go when turned: at stride 1 the kernel turned around, in
  // phases each phase's taps so.
  std::vector<TurnedTap> turned_taps, paired_taps;
  if (p.turned)
    for (int64_t r = 0; r < d.kh; ++r)
      for (int64_t q = 0; q < d.kw; ++q) {
        if (!p.phased) {
          turned_taps.push_back({0, khw, khw - 1 - (r * d.kw + q)});
          continue;
        }
        const int64_t kh = p.phase_kh[r % 2], kw = p.phase_kw[q % 2];
        turned_taps.push_back({p.phase_first[2 * (r % 2) + q % 2], kh * kw,
                               (kh - 1 - r / 2) * kw + kw - 1 - q / 2});
      }
  // (bf16 NCHW's pairing stores tap j at khw - 1 - j.)
  if (p.phased && p.pairs && !nhwc) paired_taps.assign(turned_taps.rbegin(), turned_taps.rend());

  // The weights as 32-bit elements in tap order, each output channel's taps
  // in a row: f32 as they lie (turned: W'[o][ci][r][s] = W[ci][o][kh - 1 -
  // r][kw - 1 - s], W with d.c output channels, input channel ci's run of kh x
  // kw taps for output channel o at W + (ci d.k + o) khw, reversed); bf16
  // NHWC as they lie too (OHWI with c even: a pair of channels is a 32-bit
  // element); bf16 NCHW paired first (and turned), int8 NCHW quadded first
  // (NHWC with c a multiple of 4 as it lies), NHWC with c not a whole number
  // of pairs or quads grouped first, a share of the output channels a thread.
  // int8's sums start at -(zero point x the channel's weight sum), modulo
  // 2^32, so that every tap adds (src - zero point) x weight (s8 src shifted
  // by 128 into u8, its zero point likewise).
  const float *weights = static_cast<const float *>(a.weights);
  const SrcBytes src_bytes(d);
  const int64_t per_word = 4 / src_bytes.elem;
  if (p.pairs || p.quads) {
    parallel_for_shares(d.k, threads, [&](int64_t o0, int64_t o1) {
      if (p.pairs && !nhwc)
        wide_rows_bf16_pair_weights(static_cast<const uint16_t *>(a.weights), d.k, d.c, khw,
                                    p.turned, o0, o1 - o0, p.taps, paired + o0 * p.taps);
      if (p.ragged && !p.turned) {
        // OHWI: each tap's channels in pairs or quads, the last ending in zeros.
        const auto *w = static_cast<const unsigned char *>(a.weights);
        for (int64_t o = o0; o < o1; ++o)
          for (int64_t j = 0; j < khw; ++j)
            for (int64_t u = 0; u < p.units; ++u) {
              const int64_t first = u * per_word, count = std::min(per_word, d.c - first);
              uint32_t word = 0;
              std::memcpy(&word, w + ((o * khw + j) * d.c + first) * src_bytes.elem,
                          static_cast<size_t>(count * src_bytes.elem));
              paired[o * p.taps + j * p.units + u] = word;
            }
      }
      if (!p.quads) return;
      const auto *w = static_cast<const int8_t *>(a.weights);
      if (!nhwc)
        wide_rows_int8_quad_weights(w + o0 * d.c * khw, o1 - o0, d.c, khw, p.taps,
                                    paired + o0 * p.taps, starts + o0);
      else
        for (int64_t o = o0; o < o1; ++o)
          starts[o] = std::accumulate(w + o * d.c * khw, w + (o + 1) * d.c * khw, int32_t{0});
      for (int64_t o = o0; o < o1; ++o)
        starts[o] =
            static_cast<int32_t>(0u - uint32_t{src_bytes.zero_u8} * static_cast<uint32_t>(starts[o]));
    });
    if (p.paired_floats > 0) weights = reinterpret_cast<const float *>(paired);
  }
  // NCHW's taps (u, r, s) to (r, u, s) where the plan skips rows.
  std::vector<int64_t> rows_outer;
  if (p.skip_rows && !nhwc)
    for (int64_t u = 0; u < p.units; ++u)
      for (int64_t r = 0; r < d.kh; ++r)
        for (int64_t s = 0; s < d.kw; ++s) rows_outer.push_back((r * p.units + u) * d.kw + s);
  const int64_t *order = rows_outer.empty() ? nullptr : rows_outer.data();
  // (bf16 NCHW's pairing turned them already; phased, its taps go to their
  // phases.)
  const WeightRuns runs =
      p.turned && !p.pairs ? WeightRuns{d.c, khw, d.k * khw, khw, turned_taps.data(), order}
      : p.phased           ? WeightRuns{p.units, khw, khw, p.taps, paired_taps.data(), nullptr}
                           : WeightRuns{1, p.taps, 0, p.taps, nullptr, order};
  parallel_for(p.blocks, threads, [&](int64_t b, int) {
    if (p.turned && nhwc)
      pack_block_turned_ohwi(a.weights, d, p.pairs, p.units, turned_taps.data(), b,
                             packed + b * kBlock * p.taps);
    else
      pack_block(weights, d.k, runs, b, packed + b * kBlock * p.taps);
  });

}

void conv2d_channel_lanes_avx512(const core::Conv2dArgs &a, int threads,
                                 const ChannelLanesPlan &p, void *scratch,
                                 const ChannelLanesWeights *prepacked) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t pixels = a.oh * a.ow;
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  // Each padded image and stage starts a cache line.
  const auto stride_of = [](int64_t n) {
    return static_cast<int64_t>(ScratchCarver::aligned(static_cast<size_t>(n) * sizeof(float))) /
           static_cast<int64_t>(sizeof(float));
  };
  const int64_t image_stride = stride_of(p.image_floats), stage_stride = stride_of(p.stage_floats);
  ScratchCarver carve(scratch);
  auto *offsets = carve.carve<int32_t>(p.offsets_count);
  const float *packed = prepacked ? prepacked->packed : nullptr;
  const int32_t *starts = prepacked ? prepacked->starts : nullptr;
  if (!prepacked) {
    auto *packing = carve.carve<float>(p.weight_floats);
    auto *paired = carve.carve<uint32_t>(p.paired_floats);
    auto *starting = carve.carve<int32_t>(p.starts_count);
    conv2d_channel_lanes_pack_weights(a, threads, p, packing, starting, paired);
    packed = packing, starts = starting;
  }
  auto *images = carve.carve<float>(image_stride * p.buffers);
  auto *stages = carve.carve<float>(stage_stride * p.stages);

  // The taps in the weights' order: OIHW (u, r, s) over planes of hp x wp,
  // (r, u, s) where the plan skips rows, OHWI (r, s, u) over an image of hp x
  // wp pixels, u a channel or a pair; phased: each phase's kernel from its
  // first tap.
  const auto fill_offsets = [&](int32_t *off, int64_t kh, int64_t kw, int64_t dh, int64_t dw) {
    for (int64_t u = 0; u < p.units; ++u)
      for (int64_t r = 0; r < kh; ++r)
        for (int64_t s = 0; s < kw; ++s) {
          const int64_t pixel = r * dh * p.wp + s * dw;
          if (nhwc)
            off[(r * kw + s) * p.units + u] = static_cast<int32_t>(pixel * p.pixel_floats + u);
          else
            off[(p.skip_rows ? r * p.units + u : u * kh + r) * kw + s] =
                static_cast<int32_t>(u * p.plane + pixel);
        }
  };
  if (!p.phased)
    fill_offsets(offsets, d.kh, d.kw, d.dilation_h, d.dilation_w);
  else
    for (int64_t phase = 0; phase < 4; ++phase)
      fill_offsets(offsets + p.phase_first[phase], p.phase_kh[phase / 2], p.phase_kw[phase % 2], 1,
                   1);
  // Columns of a padded row that hold image columns.
  const SrcBytes src_bytes(d);
  const int64_t x_end = std::min(d.w, p.wp - p.pad_left);
  const auto zero = [](float *to, int64_t count) {
    std::memset(to, 0, static_cast<size_t>(count) * sizeof(float));
  };
  // Units [u0, u1) of image n into the padded image at `image`, whose first
  // row is the padded image's row r0 (a band's; else 0): NCHW channels or
  // pairs of them (planes of hp rows), NHWC padded rows (of wp pixels).
  const int64_t units = nhwc ? p.hp : p.units;
  const uint32_t padding = src_bytes.zero_u8 * 0x01010101u;
  const auto pad = [&](int64_t n, int64_t u0, int64_t u1, float *image, int64_t r0) {
    for (int64_t u = u0; u < u1; ++u) {
      if (nhwc && (p.ragged || p.quads)) {
        // A pixel of src (int8, or bf16 with c odd): its c elements (s8
        // shifted into u8), then the rest of its last pair or quad: bf16
        // zeros, int8 the zero point (the weights there are zeros); padding
        // pixels likewise.
        const int64_t y = u + r0 - p.pad_top, cp = p.pixel_floats;
        auto *out = reinterpret_cast<uint32_t *>(image) + u * p.wp * cp;
        std::fill(out, out + p.wp * cp, p.quads ? padding : 0u);
        if (y < 0 || y >= d.h) continue;
        const int64_t bytes = d.c * src_bytes.elem;
        const auto *in = static_cast<const unsigned char *>(a.src) + (n * d.h + y) * d.w * bytes;
        for (int64_t x = 0; x < x_end; ++x) {
          auto *to = reinterpret_cast<unsigned char *>(out + (p.pad_left + x) * cp);
          std::memcpy(to, in + x * bytes, static_cast<size_t>(bytes));
          if (src_bytes.shift)
            for (int64_t i = 0; i < d.c; ++i) to[i] ^= 0x80u;
        }
        continue;
      }
      if (nhwc) {
        // A pixel of src: p.units 32-bit elements (f32, or bf16 pairs).
        const int64_t y = u + r0 - p.pad_top, cp = p.pixel_floats, c = p.units;
        float *out = image + u * p.wp * cp;
        if (y < 0 || y >= d.h) {
          zero(out, p.wp * cp);
          continue;
        }
        zero(out, p.pad_left * cp);
        const float *in = static_cast<const float *>(a.src) + ((n * d.h + y) * d.w) * c;
        if (cp == c)
          std::memcpy(out + p.pad_left * cp, in, static_cast<size_t>(x_end * c) * sizeof(float));
        else
          for (int64_t x = 0; x < x_end; ++x) {
            std::memcpy(out + (p.pad_left + x) * cp, in + x * c,
                        static_cast<size_t>(c) * sizeof(float));
            zero(out + (p.pad_left + x) * cp + c, cp - c);
          }
        zero(out + (p.pad_left + x_end) * cp, (p.wp - p.pad_left - x_end) * cp);
        continue;
      }
      if (p.quads) {
        // Channels 4u .. 4u + 3 (past c: the zero point) in each element,
        // the padding the zero point's bytes.
        auto *words = reinterpret_cast<uint32_t *>(image + u * p.plane);
        const auto *channels = static_cast<const uint8_t *>(a.src) + n * d.c * d.h * d.w;
        for (int64_t i = 0; i < p.hp; ++i) {
          const int64_t y = i + r0 - p.pad_top;
          uint32_t *row = words + i * p.wp;
          if (y < 0 || y >= d.h) {
            std::fill(row, row + p.wp, padding);
            continue;
          }
          const uint8_t *rows[4];
          for (int64_t q = 0; q < 4; ++q)
            rows[q] = 4 * u + q < d.c ? channels + ((4 * u + q) * d.h + y) * d.w : nullptr;
          wide_rows_int8_quad_row(rows, d.w, -p.pad_left, 1, p.wp, src_bytes.zero_byte,
                                  src_bytes.shift, 4 * (u + 1) < d.c ? 4 * d.h * d.w : 0, row);
        }
        continue;
      }
      // The image rows y0 .. y1 - 1 that the plane holds.
      const int64_t y0 = std::max<int64_t>(0, r0 - p.pad_top);
      const int64_t y1 = std::min(d.h, r0 - p.pad_top + p.hp);
      float *out = image + u * p.plane;
      zero(out, p.plane);
      if (p.pairs) {
        // Channels 2u and 2u + 1 (zeros past c) in each element.
        const auto *src = static_cast<const uint16_t *>(a.src) + (n * d.c + 2 * u) * d.h * d.w;
        const uint16_t *hi = 2 * u + 1 < d.c ? src + d.h * d.w : nullptr;
        auto *words = reinterpret_cast<uint32_t *>(out);
        for (int64_t y = y0; y < y1; ++y) {
          uint32_t *row = words + (p.pad_top + y - r0) * p.wp + p.pad_left;
          for (int64_t x = 0; x < x_end; ++x)
            row[x] = src[y * d.w + x] | (hi ? uint32_t{hi[y * d.w + x]} << 16 : 0u);
        }
        continue;
      }
      const float *in = static_cast<const float *>(a.src) + (n * d.c + u) * d.h * d.w;
      for (int64_t y = y0; y < y1; ++y)
        std::memcpy(out + (p.pad_top + y - r0) * p.wp + p.pad_left, in + y * d.w,
                    static_cast<size_t>(x_end) * sizeof(float));
    }
  };
  // The tiles over `count` output pixels of a row, pixel x reading from `row`
  // + x step, the taps `off` (`taps` of them) and their weights `w`, the sums
  // of pixel x to out + x out_pixel (NCHW: sw is the column stride).
  const auto tiles = [&](const float *row, int64_t count, int64_t step, int64_t sw,
                         const int32_t *off, int64_t taps, const float *w, const float *bias,
                         bool relu, float *out, int64_t out_pixel, int64_t out_stride,
                         int channels) {
    const int vectors = (channels + 15) / 16;
    for (int64_t x0 = 0; x0 < count; x0 += kChannelLanesPixels) {
      const int n_pixels = static_cast<int>(std::min<int64_t>(kChannelLanesPixels, count - x0));
      const ChannelLanesTile tile = p.quads ? channel_lanes_int8_tile(n_pixels, vectors, nhwc, sw)
                                    : p.pairs ? channel_lanes_bf16_tile(n_pixels, vectors, nhwc, sw)
                                              : tile_of<Fma>(n_pixels, vectors, nhwc, sw);
      tile(row + x0 * step, step, off, taps, w, bias, relu, out + x0 * out_pixel, out_stride,
           channels);
    }
  };
  // Row y of diff_src, block b, phased: its row parity's phases, the even
  // columns' then the odd ones', each from the column of W's parity that
  // reaches them, to the stage (channel-major, half a row each: interleaved
  // into diff_src's row, bf16 rounded as it is stored), or the f32 NHWC row's
  // every other pixel.
  const int64_t half = (a.ow + 1) / 2;
  const auto compute_phased = [&](int64_t n, const float *image, int64_t b, int64_t y,
                                  float *stage) {
    const int64_t o0 = kBlock * b;
    const int channels = static_cast<int>(std::min<int64_t>(kBlock, d.k - o0));
    const int64_t width = (channels + 15) / 16 * 16, pixel = p.pixel_floats;
    const int64_t parity = (y + p.pad_h) % 2, m = (y + p.pad_h - parity) / 2;
    const int64_t kh = p.phase_kh[parity];
    const float *row = image + (m - kh + 1 + p.pad_top) * p.wp * pixel;
    auto *dst16 = static_cast<uint16_t *>(a.dst);
    for (int64_t column = 0; column < 2; ++column) {
      // diff_src's columns 2 t + column, t < count: W's column parity q, x
      // from `first`.
      const int64_t q = (column + p.pad_w) % 2, first = (column + p.pad_w - q) / 2;
      const int64_t count = (a.ow - column + 1) / 2, kw = p.phase_kw[q];
      const int64_t phase = 2 * parity + q;
      float *out = !nhwc    ? stage + column * kBlock * half
                   : p.pairs ? stage
                             : static_cast<float *>(a.dst) +
                                   ((n * a.oh + y) * a.ow + column) * d.k + o0;
      const int64_t out_pixel = !nhwc ? 1 : p.pairs ? kBlock : 2 * d.k;
      tiles(row + (first - kw + 1 + p.pad_left) * pixel, count, pixel, 1,
            offsets + p.phase_first[phase], p.units * kh * kw,
            packed + o0 * p.taps + p.phase_first[phase] * width, nullptr, false, out, out_pixel,
            nhwc ? out_pixel : half, channels);
      if (nhwc && p.pairs)
        for (int64_t t = 0; t < count; ++t)
          round_to_bf16_avx512(stage + t * kBlock, channels,
                               dst16 + ((n * a.oh + y) * a.ow + 2 * t + column) * d.k + o0);
    }
    if (nhwc) return;
    for (int64_t i = 0; i < channels; ++i) {
      const float *even = stage + i * half, *odd = even + kBlock * half;
      const int64_t at = (n * d.k + o0 + i) * pixels + y * a.ow;
      if (!p.pairs) {
        interleave_columns_avx512(even, odd, a.ow, sizeof(float),
                                  static_cast<float *>(a.dst) + at);
        continue;
      }
      // Column t of the even phase rounded into the low half of a 32-bit
      // lane, the odd one's into the high half: the row's columns 2t and
      // 2t + 1 in order, 32 a store (a permute and a 16-bit store per 16
      // columns cost res3a_3x3's bf16 pass a tenth of its time on Zen 4).
      for (int64_t t = 0; t < half; t += 16) {
        const __mmask16 both = first_lanes(a.ow / 2 - t);
        const __m512i e = round_to_bf16_lanes(
            _mm512_maskz_loadu_ps(first_lanes(half - t), even + t));
        const __m512i o = round_to_bf16_lanes(_mm512_maskz_loadu_ps(both, odd + t));
        _mm512_mask_storeu_epi32(dst16 + at + 2 * t, both,
                                 _mm512_or_si512(e, _mm512_maskz_slli_epi32(0xFFFF, o, 16)));
        if (a.ow % 2 && half - t <= 16) {
          // An odd width's last column, an even one, alone.
          alignas(64) uint32_t last[16];
          _mm512_store_si512(last, e);
          dst16[at + a.ow - 1] = static_cast<uint16_t>(last[half - 1 - t]);
        }
      }
    }
  };
  // Output row y of block b (32 output channels) of image n, read from
  // `image` (its first row the padded image's row r0): f32 and int8's s32
  // into dst, bf16 and int8 to other types through `stage`, rounded once or
  // requantized by the integer GEMM's store.
  const auto compute = [&](int64_t n, const float *image, int64_t r0, int64_t b, int64_t y,
                           int thread) {
    float *stage = stages + thread * stage_stride;
    if (p.phased) {
      compute_phased(n, image, b, y, stage);
      return;
    }
    const int64_t o0 = kBlock * b;
    const int channels = static_cast<int>(std::min<int64_t>(kBlock, d.k - o0));
    const int64_t pixel = p.pixel_floats;
    const float *row = image + (y * d.stride_h - r0) * p.wp * pixel;
    const bool staged = p.stages > 0;
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
    // The kernel rows that reach the image (all but where the row's taps
    // reach the padding above or below it), their taps a run.
    int64_t first_row = 0, end_row = d.kh;
    if (p.skip_rows) {
      const int64_t top = y * d.stride_h - d.pad_h, below = d.h - top;
      first_row = std::min(d.kh, top < 0 ? (-top + d.dilation_h - 1) / d.dilation_h : 0);
      end_row = std::max(first_row, std::min(d.kh, below <= 0 ? 0
                                                               : (below + d.dilation_h - 1) /
                                                                     d.dilation_h));
    }
    const int64_t row_taps = p.taps / d.kh, width = (channels + 15) / 16 * 16;
    const int64_t t0 = first_row * row_taps;
    tiles(row, a.ow, d.stride_w * pixel, d.stride_w, offsets + t0, (end_row - first_row) * row_taps,
          packed + o0 * p.taps + t0 * width, bias, relu, out, out_pixel, out_stride, channels);
    if (!staged) return;
    if (p.quads) {
      const auto *sums = reinterpret_cast<const int32_t *>(stage);
      auto *bytes = static_cast<unsigned char *>(a.dst);
      const auto size = static_cast<int64_t>(dlk_dtype_size(d.dst_type));
      if (nhwc) {
        gemm_store_s32_avx512(S32TileStore{
            sums, kBlock, a.ow, channels, bytes + ((n * a.oh + y) * a.ow * d.k + o0) * size, d.k,
            1, d.dst_type, 0.0f, a.multiplier,
            a.channel_multipliers ? a.channel_multipliers + o0 : nullptr, nullptr, nullptr,
            a.bias ? a.bias + o0 : nullptr, d.relu != 0, d.dst_zero_point});
        return;
      }
      // The block's channels as the store's rows in one call (a call per
      // channel, 56 sums each, cost res2a_3x3's u8 dst a sixth of its time at
      // batch 1 on 2 threads, Zen 4).
      gemm_store_s32_avx512(S32TileStore{
          sums, a.ow, channels, a.ow, bytes + ((n * d.k + o0) * pixels + y * a.ow) * size,
          pixels, 1, d.dst_type, 0.0f, a.multiplier, nullptr,
          a.channel_multipliers ? a.channel_multipliers + o0 : nullptr,
          a.bias ? a.bias + o0 : nullptr, nullptr, d.relu != 0, d.dst_zero_point});
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
      pad(n, 0, units, image, 0);
      for (int64_t b = 0; b < p.blocks; ++b)
        for (int64_t y = 0; y < a.oh; ++y) compute(n, image, 0, b, y, thread);
    });
    return;
  }
  // Each thread pads into its own buffer the rows it reads: those of its
  // band of output rows, every block of the band; or the whole image, its
  // share of the tasks (a block of output channels and an output row each,
  // block-major: a thread's blocks' weights stay in its L2 while it passes
  // over the rows).
  const int64_t tasks = p.blocks * a.oh;
  for (int64_t n = 0; n < d.n; ++n)
    parallel_for(std::max(p.bands, p.copies), threads, [&](int64_t i, int thread) {
      float *image = images + thread * image_stride;
      if (p.bands > 1) {
        const int64_t y0 = i * p.band_rows, y1 = std::min(a.oh, y0 + p.band_rows);
        pad(n, 0, units, image, y0 * d.stride_h);
        for (int64_t b = 0; b < p.blocks; ++b)
          for (int64_t y = y0; y < y1; ++y) compute(n, image, y0 * d.stride_h, b, y, thread);
        return;
      }
      pad(n, 0, units, image, 0);
      for (int64_t task = tasks * i / p.copies; task < tasks * (i + 1) / p.copies; ++task)
        compute(n, image, 0, task / a.oh, task % a.oh, thread);
    });
}

}  // namespace dlk::cpu::kernels
