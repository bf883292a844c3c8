// Compiled with AVX-512 F/BW/DQ/BF16 and -mamx-tile -mamx-bf16; called only
// where bf16 GEMM runs on AMX (conv2d_backward_weights.cpp). The scheme is in
// conv2d_amx_backward_weights_kernels.hpp.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu_avx512/kernels/bf16_round_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_amx_backward_weights_kernels.hpp"
#include "backends/cpu_avx512/kernels/transpose_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"
#include "backends/cpu_avx512/scratch.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/amx_tiles.inc"

constexpr int64_t kTile = 32;  // channels of a C tile block, positions of a k step
constexpr int64_t kHalf = 16;  // rows of a tile
// A group's operands up to this many bytes stay in a core's L2 (2 MiB on the
// Xeons with AMX) while every tile block of sums runs over them.
constexpr int64_t kGroupBytes = int64_t{1} << 20;
// Runs of f32 sums each thread rounds into diff_weights.
constexpr int64_t kRoundRun = 4096;

// The f32 of 16 bf16 (the zero-masking forms: GCC 12 takes the plain ones'
// undefined pass-through for a read of an uninitialized value).
__m512 widen(__m256i bf16) {
  const __m512i wide = _mm512_maskz_cvtepu16_epi32(0xffff, bf16);
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xffff, wide, 16));
}

// out[i] = in[i x stride] for i < count; stride 2 by permutes of 64
// elements into 32 (by elements, the planes of res3a's images took as long as
// the tiles' products).
void take_strided(const uint16_t *in, int64_t stride, int64_t count, uint16_t *out) {
  if (stride != 2) {
    for (int64_t i = 0; i < count; ++i) out[i] = in[i * stride];
    return;
  }
  const __m512i even = _mm512_set_epi16(62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38, 36,
                                        34, 32, 30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6,
                                        4, 2, 0);
  for (int64_t i = 0; i < count; i += 32) {
    // Elements [2 i, 2 i + reach) of in are read, the last one taken.
    const int64_t left = std::min<int64_t>(32, count - i), reach = 2 * left - 1;
    const __m512i lo = _mm512_maskz_loadu_epi16(
        static_cast<__mmask32>(reach >= 32 ? ~0u : (1u << reach) - 1), in + 2 * i);
    const __m512i hi = _mm512_maskz_loadu_epi16(
        static_cast<__mmask32>(reach <= 32 ? 0u : (1u << (reach - 32)) - 1), in + 2 * i + 32);
    _mm512_mask_storeu_epi16(out + i,
                             static_cast<__mmask32>(left == 32 ? ~0u : (1u << left) - 1),
                             _mm512_permutex2var_epi16(lo, even, hi));
  }
}

// Padded row y of image `src` into its channel-major phase planes `out`:
// padded pixel (y, x) of channel ci to plane (y % sh, x % sw) of ci, row
// y / sh, column x / sw; zeros around the image and past its edge. `stage`
// holds a row of c x w (NHWC at strides past 1).
void prepare_src_row(const core::Conv2dArgs &a, const AmxBackwardWeightsPlan &plan,
                     const uint16_t *src, int64_t y, uint16_t *stage, uint16_t *out) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t c = d.c, sh = d.stride_h, sw = d.stride_w, pr = y % sh;
  const auto line = [&](int64_t ps, int64_t ci) {
    return out + ((pr * sw + ps) * c + ci) * plan.plane + y / sh * plan.wq;
  };
  const int64_t ih = y - d.pad_h;
  if (y >= plan.hp || ih < 0 || ih >= d.h) {
    for (int64_t ps = 0; ps < sw; ++ps)
      for (int64_t ci = 0; ci < c; ++ci) std::fill_n(line(ps, ci), plan.wq, uint16_t{0});
    return;
  }
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  if (sw == 1) {  // the pixels straight into the lines
    if (nhwc)
      transpose_avx512(src + ih * d.w * c, d.w, c, c, sizeof(uint16_t), line(0, 0) + d.pad_w,
                       plan.plane);
    for (int64_t ci = 0; ci < c; ++ci) {
      uint16_t *l = line(0, ci);
      std::fill_n(l, d.pad_w, uint16_t{0});
      if (!nhwc)
        std::memcpy(l + d.pad_w, src + (ci * d.h + ih) * d.w, static_cast<size_t>(d.w) * 2);
      std::fill(l + d.pad_w + d.w, l + plan.wq, uint16_t{0});
    }
    return;
  }
  // Channel ci's row at row + ci x channel_stride.
  const uint16_t *row = src + ih * d.w;
  int64_t channel_stride = d.h * d.w;
  if (nhwc) {
    transpose_avx512(src + ih * d.w * c, d.w, c, c, sizeof(uint16_t), stage, d.w);
    row = stage, channel_stride = d.w;
  }
  for (int64_t ps = 0; ps < sw; ++ps) {
    // Columns [lo, hi) of plane ps are pixels of the row: xq sw + ps - pad_w.
    const int64_t first = d.pad_w - ps, last = d.w - 1 + d.pad_w - ps;
    const int64_t lo = first <= 0 ? 0 : (first + sw - 1) / sw;
    const int64_t hi = last < 0 ? 0 : std::min(plan.wq, last / sw + 1);
    for (int64_t ci = 0; ci < c; ++ci) {
      uint16_t *l = line(ps, ci);
      if (hi <= lo) {
        std::fill_n(l, plan.wq, uint16_t{0});
        continue;
      }
      std::fill_n(l, lo, uint16_t{0});
      take_strided(row + ci * channel_stride + lo * sw + ps - d.pad_w, sw, hi - lo, l + lo);
      std::fill(l + hi, l + plan.wq, uint16_t{0});
    }
  }
}

// Output channels [o0, o0 + 16) of image `diff_dst` into position pairs
// `out` (pair j, channel o: positions 2j and 2j + 1 at out[(j k + o) 2 + u]),
// zero at the positions that are no output pixel; their sums over the image
// into bias[0, 16). `stage` holds 16 x flat (NCHW).
void prepare_diff_dst(const core::Conv2dArgs &a, const AmxBackwardWeightsPlan &plan,
                      const uint16_t *diff_dst, int64_t o0, uint16_t *stage, uint16_t *out,
                      float *bias) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t k = d.k, pixels = a.oh * a.ow;
  __m512 sum = _mm512_setzero_ps();
  if (d.format == DLK_FORMAT_NHWC) {
    // Lane 2e is channel e of the first position, 2e + 1 of the second.
    const __m512i pairs = _mm512_set_epi16(
        47, 15, 46, 14, 45, 13, 44, 12, 43, 11, 42, 10, 41, 9, 40, 8, 39, 7, 38, 6, 37, 5, 36, 4,
        35, 3, 34, 2, 33, 1, 32, 0);
    int64_t oh = 0, ow = 0;  // of position 2j + u
    const auto next = [&]() {
      __m256i v = _mm256_setzero_si256();
      if (oh < a.oh && ow < a.ow)
        v = _mm256_loadu_si256(
            reinterpret_cast<const __m256i *>(diff_dst + (oh * a.ow + ow) * k + o0));
      if (++ow == plan.wq) ow = 0, ++oh;
      return v;
    };
    for (int64_t j = 0; j < plan.flat / 2; ++j) {
      const __m256i first = next(), second = next();
      sum = _mm512_add_ps(sum, _mm512_add_ps(widen(first), widen(second)));
      _mm512_storeu_si512(out + (j * k + o0) * 2,
                          _mm512_permutex2var_epi16(_mm512_castsi256_si512(first), pairs,
                                                    _mm512_castsi256_si512(second)));
    }
    _mm512_storeu_ps(bias, sum);
    return;
  }
  // NCHW: each channel's row with the positions' gaps, then the 16 rows
  // turned into pairs by 32-bit transposes.
  for (int64_t e = 0; e < kHalf; ++e) {
    const uint16_t *in = diff_dst + (o0 + e) * pixels;
    uint16_t *row = stage + e * plan.flat;
    __m512 lanes = _mm512_setzero_ps();
    for (int64_t oh = 0; oh < a.oh; ++oh) {
      std::memcpy(row + oh * plan.wq, in + oh * a.ow, static_cast<size_t>(a.ow) * 2);
      std::fill(row + oh * plan.wq + a.ow, row + (oh + 1) * plan.wq, uint16_t{0});
    }
    std::fill(row + a.oh * plan.wq, row + plan.flat, uint16_t{0});
    for (int64_t q = 0; q < plan.flat; q += 16)
      lanes = _mm512_add_ps(
          lanes, widen(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(row + q))));
    alignas(64) float lane[16];
    _mm512_store_ps(lane, lanes);
    bias[e] = 0.0f;
    for (const float v : lane) bias[e] += v;
  }
  transpose_avx512(stage, kHalf, plan.flat / 2, plan.flat / 2, 4,
                   reinterpret_cast<uint32_t *>(out) + o0, k);
}

// Where plan.direct_ohwi rounds a block of 32 x 32 channels: output channel
// o's 32 input channels of tap t at `at` + o x o_stride + t x tap_stride.
struct RoundedBlock {
  uint16_t *at;
  int64_t o_stride, tap_stride;
};

// sums (tap's c x k f32, row stride k) at [c0, c0 + 32) x [o0, o0 + 32) +=
// the group's `images` products of tap (r, s); `first`: the sums start at 0.
// `rounded` (plan.direct_ohwi): the block is instead turned and rounded
// straight there, sums untouched.
void sum_block(const core::Conv2dArgs &a, const AmxBackwardWeightsPlan &plan,
               const uint16_t *src, const uint16_t *diff_dst, int64_t images, int64_t r,
               int64_t s, int64_t c0, int64_t o0, bool first, float *sums,
               const RoundedBlock *rounded) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t k = d.k;
  const int64_t phase = (r % d.stride_h) * d.stride_w + s % d.stride_w;
  const int64_t offset = (phase * d.c + c0) * plan.plane + r / d.stride_h * plan.wq +
                         s / d.stride_w;
  const int64_t a_bytes = plan.plane * 2, b_bytes = k * 4;
  alignas(64) float block[kTile][kTile];
  int64_t c_bytes = k * 4;
  float *c = sums + c0 * k + o0;
  if (rounded) c = &block[0][0], c_bytes = sizeof block[0];
  ensure_tile_config(full_tiles());
  if (first) {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
  } else {
    _tile_loadd(0, c, c_bytes);
    _tile_loadd(1, c + kHalf, c_bytes);
    _tile_loadd(2, c + kHalf * k, c_bytes);
    _tile_loadd(3, c + kHalf * k + kHalf, c_bytes);
  }
  for (int64_t image = 0; image < images; ++image) {
    const uint16_t *a_rows = src + image * plan.src_elems + offset;
    const uint16_t *b_rows = diff_dst + image * plan.diff_dst_elems + o0 * 2;
    for (int64_t q0 = 0; q0 < plan.flat; q0 += kTile) {
      _tile_loadd(4, a_rows + q0, a_bytes);
      _tile_loadd(6, b_rows + q0 * k, b_bytes);
      _tile_loadd(5, a_rows + kHalf * plan.plane + q0, a_bytes);
      _tile_loadd(7, b_rows + q0 * k + 2 * kHalf, b_bytes);
      Bf16Products::run<true, true>();
    }
  }
  const int64_t c_row = c_bytes / 4;
  _tile_stored(0, c, c_bytes);
  _tile_stored(1, c + kHalf, c_bytes);
  _tile_stored(2, c + kHalf * c_row, c_bytes);
  _tile_stored(3, c + kHalf * c_row + kHalf, c_bytes);
  memory_barrier();
  if (!rounded) return;
  // [ci][o] into [o][ci], each output channel's 32 sums rounded.
  alignas(64) float turned[kTile][kTile];
  transpose_avx512(&block[0][0], kTile, kTile, kTile, 4, &turned[0][0], kTile);
  const int64_t tap = r * d.kw + s;
  for (int64_t o = 0; o < kTile; ++o)
    round_to_bf16_avx512(turned[o], kTile,
                         rounded->at + o * rounded->o_stride + tap * rounded->tap_stride);
}

// One team's buffers: its sums, its group's operands, a stage per thread
// (and for NCHW's direct_ohwi a block of rounded weights per thread).
struct Workspace {
  float *sums;  // [tap][ci][o]
  uint16_t *src, *pairs, *stages, *blocks;
};

// ws.sums = the products of images [begin, end) into output channels
// [32 oblock0, 32 oblock1), a group at a time, on up to `threads` threads;
// each image's diff_dst of those channels sums into bias. `direct`
// (plan.direct_ohwi): diff_weights, the blocks rounded straight into it.
void sum_images(const core::Conv2dArgs &a, const AmxBackwardWeightsPlan &plan, int64_t begin,
                int64_t end, int64_t oblock0, int64_t oblock1, int threads, const Workspace &ws,
                float *bias, uint16_t *direct) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t c = d.c, k = d.k;
  const auto *src_in = static_cast<const uint16_t *>(a.src);
  const auto *diff_dst_in = static_cast<const uint16_t *>(a.diff_dst);
  const int64_t src_image = c * d.h * d.w, diff_dst_image = k * a.oh * a.ow;
  const int64_t rows = plan.hq * d.stride_h, chunks = (oblock1 - oblock0) * (kTile / kHalf);
  const int64_t cblocks = c / kTile, oblocks = oblock1 - oblock0;
  for (int64_t n0 = begin; n0 < end; n0 += plan.images) {
    const int64_t images = std::min(plan.images, end - n0);
    // Two teams, not one: a static share of both kinds of parts left one
    // thread waiting on the other.
    parallel_for(images * rows, threads, [&](int64_t unit, int t) {
      const int64_t image = unit / rows, y = unit % rows;
      uint16_t *out = ws.src + image * plan.src_elems;
      prepare_src_row(a, plan, src_in + (n0 + image) * src_image, y,
                      ws.stages + t * plan.stage_elems, out);
      if (y == 0)  // the planes' tails past hq x wq
        for (int64_t line = 0; line < d.stride_h * d.stride_w * c; ++line)
          std::fill(out + line * plan.plane + plan.hq * plan.wq, out + (line + 1) * plan.plane,
                    uint16_t{0});
    });
    parallel_for(images * chunks, threads, [&](int64_t unit, int t) {
      const int64_t image = unit / chunks, n = n0 + image;
      const int64_t o0 = oblock0 * kTile + unit % chunks * kHalf;
      prepare_diff_dst(a, plan, diff_dst_in + n * diff_dst_image, o0,
                       ws.stages + t * plan.stage_elems, ws.pairs + image * plan.diff_dst_elems,
                       bias + n * k + o0);
    });
    if (direct && d.format == DLK_FORMAT_NCHW) {
      // OIHW puts a tap's input channels kh x kw apart: a block's taps are
      // rounded into [o][tap][ci] in turn, then each output channel's turned
      // into its OIHW run of 32 input channels x taps.
      parallel_for(cblocks * oblocks, threads, [&](int64_t block, int t) {
        const int64_t c0 = block % cblocks * kTile, o0 = (oblock0 + block / cblocks) * kTile;
        uint16_t *stage = ws.blocks + t * plan.block_elems;
        const RoundedBlock rounded{stage, plan.taps * kTile, kTile};
        for (int64_t tap = 0; tap < plan.taps; ++tap)
          sum_block(a, plan, ws.src, ws.pairs, images, tap / d.kw, tap % d.kw, c0, o0, true,
                    nullptr, &rounded);
        for (int64_t o = 0; o < kTile; ++o)
          transpose_avx512(stage + o * plan.taps * kTile, plan.taps, kTile, kTile, 2,
                           direct + ((o0 + o) * c + c0) * plan.taps, plan.taps);
      });
      continue;
    }
    parallel_for(plan.taps * cblocks * oblocks, threads, [&](int64_t unit, int) {
      const int64_t tap = unit % plan.taps, block = unit / plan.taps;
      const int64_t c0 = block % cblocks * kTile, o0 = (oblock0 + block / cblocks) * kTile;
      RoundedBlock rounded{};
      if (direct) rounded = {direct + o0 * plan.taps * c + c0, plan.taps * c, c};
      sum_block(a, plan, ws.src, ws.pairs, images, tap / d.kw, tap % d.kw, c0, o0, n0 == begin,
                ws.sums + tap * c * k, direct ? &rounded : nullptr);
    });
  }
}

}  // namespace

AmxBackwardWeightsPlan::AmxBackwardWeightsPlan(const core::Conv2dArgs &a, int team)
    : PhasePlanes(a) {
  const dlk_conv2d_desc &d = a.desc;
  // The last k step of the farthest tap reads position flat - 1 + reach.
  plane = (std::max(hq * wq, flat + reach) + kTile - 1) / kTile * kTile;
  src_elems = d.stride_h * d.stride_w * d.c * plane;
  diff_dst_elems = flat * d.k;
  const int64_t image_bytes = (src_elems + diff_dst_elems) * 2;
  images = std::clamp<int64_t>(kGroupBytes / image_bytes, 1, d.n);
  threads = std::max(team, 1);
  stage_elems = std::max(d.format == DLK_FORMAT_NHWC && d.stride_w > 1 ? d.c * d.w : 0,
                         d.format == DLK_FORMAT_NCHW ? kHalf * flat : 0);
  const auto bytes_of = [](int64_t count, int64_t size) {
    return ScratchCarver::aligned(static_cast<size_t>(count * size));
  };
  const int64_t weights = taps * d.c * d.k;
  const size_t shared =
      bytes_of(weights, 4) + bytes_of(d.n * d.k, 4) + bytes_of(threads * stage_elems, 2);
  const size_t workspace = bytes_of(weights, 4) + bytes_of(images * src_elems, 2) +
                           bytes_of(images * diff_dst_elems, 2);
  // A team a thread, each on its share of the images into sums of its own
  // (added up at the end), where the batch has an image for each: the
  // threads sharing each group, each preparing part of it and every one
  // reading all of it, ran res3a_3x3 at batch 8 on 2 threads 1.2x as fast as
  // on one (Intel Xeon model 167).
  workers = d.n >= threads && threads > 1 ? threads : 1;
  // Fewer images than threads: a team a thread, each on a share of the
  // output channels of every image, preparing all of src itself (shared,
  // each thread read the half of the operands the other had prepared):
  // ResNet-50 bf16 at batch 1 on 2 threads, x oneDNN-any, res2a_3x3
  // 0.59-0.61 -> 0.83-0.87, res3b_3x3 0.49-0.51 -> 0.59-0.63, res3a_3x3
  // 0.71-0.73 -> 0.75 (Intel Xeon model 167).
  split_outputs = workers == 1 && threads > 1 && d.k / kTile >= threads;
  if (split_outputs) workers = threads;
  // Split by output channels, the teams share the first one's sums.
  bytes = shared + static_cast<size_t>(workers) * workspace -
          (split_outputs ? static_cast<size_t>(workers - 1) * bytes_of(weights, 4) : 0);
  if (workers > 1 && bytes > kScratchBound)
    workers = 1, split_outputs = false, bytes = shared + workspace;
  direct_ohwi = images >= d.n && (workers == 1 || split_outputs);
  block_elems = direct_ohwi && d.format == DLK_FORMAT_NCHW ? kTile * taps * kTile : 0;
  bytes += bytes_of(threads * block_elems, 2);
}

bool conv2d_amx_backward_weights_applies(const core::Conv2dArgs &a, int threads) {
  const dlk_conv2d_desc &d = a.desc;
  if (!(d.src_type == DLK_DTYPE_BF16 && d.weights_type == DLK_DTYPE_BF16 &&
        d.dst_type == DLK_DTYPE_BF16 && d.groups == 1 && d.kh * d.kw >= 2 &&
        d.dilation_h == 1 && d.dilation_w == 1 && d.pad_h >= 0 && d.pad_w >= 0 &&
        d.c % kTile == 0 && d.k % kTile == 0))
    return false;
  const AmxBackwardWeightsPlan plan(a, threads);
  // Below 512 positions over the batch (16 k steps) each block of sums is
  // zeroed and stored for a few products, and the weights are turned and
  // rounded for little work: there im2col^T and the GEMM run faster. Intel
  // Xeon model 167, ResNet-50 at batch 1, 1 thread, x oneDNN-any, here / on
  // the GEMM: res5b_3x3 (64 positions) 0.29 / 0.51, res4b (224) 0.57 / 0.52,
  // res4a (224) 1.00 / 1.13, res3b (864) 0.65 / 0.34, res3a (832) 1.23 /
  // 0.55; res5b at batch 32 (2048) 0.89 / 0.50. Where each block goes
  // straight into OHWI diff_weights (direct_ohwi) there is no such floor:
  // 1 / 2 threads, res4a 1.77-1.80 / 1.39-1.46 on the GEMM -> 1.92-2.04 /
  // 1.56-1.60 here, res4b 0.82-0.83 / 0.67-0.69 -> 1.31-1.39 / 1.20-1.26,
  // res5a 1.61-1.63 / 1.20-1.23 -> 2.07-2.24 / 1.71-1.77, res5b 0.67 /
  // 0.62-0.68 -> 0.96-1.01 / 1.07-1.14 (NHWC); NCHW, a block's taps rounded
  // together: res4a 1.10 / 0.96 -> 1.42 / 1.21, res4b 0.54 / 0.47 -> 0.88 /
  // 0.77, res5a 1.28 / 1.05 -> 1.43 / 1.12, res5b 0.54 -> 0.68 / 0.67.
  return (plan.direct_ohwi || d.n * plan.flat >= 512) && plan.bytes <= kScratchBound;
}

void conv2d_amx_backward_weights(const core::Conv2dArgs &a, int threads,
                                 const AmxBackwardWeightsPlan &plan, void *scratch) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t c = d.c, k = d.k, weights = plan.taps * c * k;
  ScratchCarver carve(scratch);
  auto *turned = carve.carve<float>(weights);  // diff_weights' layout
  auto *bias = carve.carve<float>(d.n * k);    // each image's diff_dst sums
  auto *stages = carve.carve<uint16_t>(plan.threads * plan.stage_elems);
  auto *blocks = carve.carve<uint16_t>(plan.threads * plan.block_elems);
  std::vector<Workspace> spaces;
  for (int64_t w = 0; w < plan.workers; ++w)
    spaces.push_back({carve.carve<float>(plan.split_outputs && w > 0 ? 0 : weights),
                      carve.carve<uint16_t>(plan.images * plan.src_elems),
                      carve.carve<uint16_t>(plan.images * plan.diff_dst_elems),
                      stages + w * plan.stage_elems, blocks + w * plan.block_elems});
  float *sums = spaces[0].sums;
  const int64_t oblocks = k / kTile;
  auto *diff_weights = static_cast<uint16_t *>(a.diff_weights);
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  uint16_t *direct = plan.direct_ohwi ? diff_weights : nullptr;
  if (plan.workers == 1) {
    sum_images(a, plan, 0, d.n, 0, oblocks, threads, spaces[0], bias, direct);
  } else if (plan.split_outputs) {
    const int64_t workers = plan.workers;
    parallel_for(workers, static_cast<int>(workers), [&](int64_t w, int) {
      Workspace ws = spaces[static_cast<size_t>(w)];
      ws.sums = sums;
      sum_images(a, plan, 0, d.n, oblocks * w / workers, oblocks * (w + 1) / workers, 1, ws,
                 bias, direct);
    });
  } else {
    const int64_t workers = plan.workers;
    parallel_for(workers, static_cast<int>(workers), [&](int64_t w, int) {
      sum_images(a, plan, d.n * w / workers, d.n * (w + 1) / workers, 0, oblocks, 1, spaces[w],
                 bias, nullptr);
    });
    parallel_for((weights + kRoundRun - 1) / kRoundRun, threads, [&](int64_t run, int) {
      const int64_t e0 = run * kRoundRun, e1 = std::min(weights, e0 + kRoundRun);
      for (int64_t w = 1; w < workers; ++w)
        for (int64_t e = e0; e < e1; ++e) sums[e] += spaces[w].sums[e];
    });
  }
  if (!direct) {
    // sums[tap][ci][o] into OHWI ([o][tap][ci]) or OIHW ([o][ci][tap]).
    if (nhwc)
      parallel_for(plan.taps, threads, [&](int64_t tap, int) {
        transpose_avx512(sums + tap * c * k, c, k, k, 4, turned + tap * c, plan.taps * c);
      });
    else
      parallel_for(c, threads, [&](int64_t ci, int) {
        transpose_avx512(sums + ci * k, plan.taps, k, c * k, 4, turned + ci * plan.taps,
                         c * plan.taps);
      });
    parallel_for((weights + kRoundRun - 1) / kRoundRun, threads, [&](int64_t run, int) {
      const int64_t e0 = run * kRoundRun;
      round_to_bf16_avx512(turned + e0, std::min(kRoundRun, weights - e0), diff_weights + e0);
    });
  }
  if (a.diff_bias)
    for (int64_t o = 0; o < k; ++o) {
      float total = 0.0f;
      for (int64_t n = 0; n < d.n; ++n) total += bias[n * k + o];
      a.diff_bias[o] = total;
    }
}

}  // namespace dlk::cpu::kernels
