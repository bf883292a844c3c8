// Compiled with AVX-512 F/BW/DQ/BF16 and -mamx-tile -mamx-bf16 -mamx-int8;
// called only where GEMM of the convolution's dtype runs on AMX
// (conv2d_im2col.cpp, conv2d_backward_data.cpp). The scheme is in
// conv2d_amx_kernels.hpp.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "backends/cpu_avx512/kernels/conv2d_amx_kernels.hpp"
#include "backends/cpu_avx512/kernels/gemm_store_kernels.hpp"
#include "backends/cpu_avx512/kernels/gemm_tile_store_avx512.inc"
#include "backends/cpu_avx512/kernels/transpose_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"
#include "backends/cpu_avx512/scratch.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/amx_tiles.inc"

constexpr int64_t kTile = 32;      // positions and output channels of a C tile
constexpr int64_t kHalf = 16;      // rows of a tile
constexpr int64_t kRowBytes = 64;  // of a tile: one k step of a position's channels
// Weights beyond this many bytes are swept once, each block of output channels
// over all positions, rather than once per tile of positions (their panels
// would no longer stay in L2 between tiles).
constexpr int64_t kTileMajorWeightBytes = int64_t{1} << 20;

// What differs between bf16 and int8 (u8 src x s8 weights).
struct Bf16Conv {
  using Elem = uint16_t;
  using Acc = float;
  using Products = Bf16Products;
};
struct Int8Conv {
  using Elem = uint8_t;
  using Acc = int32_t;
  using Products = U8S8Products;
};

bool is_int8(const dlk_conv2d_desc &d) {
  return d.src_type == DLK_DTYPE_U8 || d.src_type == DLK_DTYPE_S8;
}

// C 0-3 (top left, top right, bottom left, bottom right), A 4-5 (the
// positions' two halves), B 6-7 (the output channels' two halves): all 16
// rows of 64 bytes.
TileConfig full_tiles() {
  TileConfig config{};
  config.palette = 1;
  for (int t = 0; t < 8; ++t) set_tile(config, t, static_cast<int>(kHalf));
  return config;
}

struct Geometry {
  int64_t c, k, kh, kw, wp, oh, ow;
};

// acc = the 32 positions from q0 x the 32 output channels of `panel`, every
// tap and channel summed in the tiles.
template <class Conv>
void sum_tile(const Geometry &g, const typename Conv::Elem *image, int64_t q0,
              const typename Conv::Elem *panel, typename Conv::Acc (&acc)[kTile][kTile]) {
  using Elem = typename Conv::Elem;
  constexpr int64_t step = kRowBytes / int64_t{sizeof(Elem)};  // channels a k step
  const int64_t a_bytes = g.c * int64_t{sizeof(Elem)};
  constexpr int64_t b_bytes = kTile * 4;  // a k-group row of 32 output channels
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  for (int64_t r = 0; r < g.kh; ++r)
    for (int64_t s = 0; s < g.kw; ++s) {
      const Elem *a = image + (q0 + r * g.wp + s) * g.c;
      // Tap (r, s)'s k-group rows: tap x c / group rows of b_bytes.
      const Elem *b = panel + (r * g.kw + s) * g.c * kTile;
      for (int64_t c0 = 0; c0 < g.c; c0 += step) {
        _tile_loadd(4, a + c0, a_bytes);
        _tile_loadd(6, b + c0 * kTile, b_bytes);
        _tile_loadd(5, a + kHalf * g.c + c0, a_bytes);
        _tile_loadd(7, b + c0 * kTile + step, b_bytes);
        Conv::Products::template run<true, true>();
      }
    }
  constexpr int64_t acc_bytes = sizeof acc[0];
  _tile_stored(0, &acc[0][0], acc_bytes);
  _tile_stored(1, &acc[0][kHalf], acc_bytes);
  _tile_stored(2, &acc[kHalf][0], acc_bytes);
  _tile_stored(3, &acc[kHalf][kHalf], acc_bytes);
  memory_barrier();
}

// The tile's positions that are output pixels, rounded into the NHWC bf16
// image `out` (bias, ReLU as the GEMM's store applies them).
void store_bf16_tile(const Geometry &g, const float (&acc)[kTile][kTile], int64_t q0,
                     int64_t block, const float *bias, bool relu, uint16_t *out) {
  const int64_t k0 = block * kTile;
  F32Tile tile{};
  tile.ldc = kTile;
  tile.rows = 1;
  tile.cols = static_cast<int>(std::min(kTile, g.k - k0));
  tile.alpha = 1.0f;
  tile.col_bias = bias ? bias + k0 : nullptr;
  tile.relu = relu;
  tile.bf16_ld = g.k;
  const bool summed = stores_as_summed(tile);
  for (int64_t i = 0; i < kTile; ++i) {
    const int64_t q = q0 + i, oh = q / g.wp, ow = q % g.wp;
    if (oh >= g.oh || ow >= g.ow) continue;
    tile.c = const_cast<float *>(&acc[i][0]);  // beta 0: never read
    tile.bf16 = out + (oh * g.ow + ow) * g.k + k0;
    const __m512 x[1][2] = {{_mm512_load_ps(&acc[i][0]), _mm512_load_ps(&acc[i][kHalf])}};
    if (summed)
      store_summed_tile_avx512<1, 2>(x, tile);
    else
      store_tile_avx512<1, 2>(x, tile);
  }
}

// The tile's positions that are output pixels of image n into dst (NCHW or
// NHWC, any int8 dst type) by the GEMM's s32 store, a run of consecutive
// pixels of one output row at a time; src's zero point (as packed) `a_zero`
// compensated by the weights' sums first.
void store_int8_tile(const core::Conv2dArgs &a, const Geometry &g, int32_t (&acc)[kTile][kTile],
                     int64_t n, int64_t q0, int64_t block, int32_t a_zero, const int32_t *sums) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t k0 = block * kTile, cols = std::min(kTile, g.k - k0), pixels = g.oh * g.ow;
  if (a_zero != 0)
    for (int64_t i = 0; i < kTile; ++i)
      for (int64_t j = 0; j < cols; ++j)  // wrapping, as the GEMM's compensation
        acc[i][j] = static_cast<int32_t>(static_cast<uint32_t>(acc[i][j]) -
                                         static_cast<uint32_t>(a_zero) *
                                             static_cast<uint32_t>(sums[k0 + j]));
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  const int64_t elem = static_cast<int64_t>(dlk_dtype_size(d.dst_type));
  for (int64_t i0 = 0; i0 < kTile;) {
    const int64_t q = q0 + i0, oh = q / g.wp, ow = q % g.wp;
    if (oh >= g.oh || ow >= g.ow) {
      ++i0;
      continue;
    }
    const int64_t run = std::min(kTile - i0, g.ow - ow), pixel = oh * g.ow + ow;
    const int64_t at = nhwc ? (n * pixels + pixel) * g.k + k0 : (n * g.k + k0) * pixels + pixel;
    gemm_store_s32_avx512({&acc[i0][0], kTile, run, cols,
                           static_cast<unsigned char *>(a.dst) + at * elem, nhwc ? g.k : 1,
                           nhwc ? 1 : pixels, d.dst_type, 0.0f, a.multiplier,
                           a.channel_multipliers ? a.channel_multipliers + k0 : nullptr, nullptr,
                           nullptr, a.bias ? a.bias + k0 : nullptr, d.relu != 0,
                           d.dst_zero_point});
    i0 += run;
  }
}

// The weights (KRSC) as k-group panels of 32 output channels, taps outer and
// channels inner: group row u of block b holds group u of its channels' rows.
template <class Elem>
void pack_weights(const Elem *krsc, const Geometry &g, int64_t taps, int64_t blocks, int threads,
                  Elem *panels) {
  const int64_t groups = taps * g.c * int64_t{sizeof(Elem)} / 4, panel = taps * g.c * kTile;
  parallel_for(blocks, threads, [&](int64_t b, int) {
    const int64_t rows = std::min(kTile, g.k - b * kTile);
    Elem *out = panels + b * panel;
    if (rows < kTile) std::memset(out, 0, static_cast<size_t>(panel) * sizeof(Elem));
    transpose_avx512(krsc + b * kTile * taps * g.c, rows, groups, groups, 4, out, kTile);
  });
}

// Image n of src into the padded NHWC buffer: `pad` around it (bf16 0,
// int8 src's zero point), each element xored with `flip` (s8 into u8).
template <class Elem>
void pad_image(const core::Conv2dArgs &a, const AmxConvPlan &plan, int64_t n, Elem pad,
               Elem flip, int threads, Elem *image) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t c = d.c, row = plan.wp * c;
  const Elem *src = static_cast<const Elem *>(a.src) + n * c * d.h * d.w;
  parallel_for(plan.hp, threads, [&](int64_t y, int) {
    Elem *line = image + y * row;
    const int64_t ih = y - d.pad_h;
    if (ih < 0 || ih >= d.h) {
      std::fill(line, line + row, pad);
      return;
    }
    std::fill(line, line + d.pad_w * c, pad);
    std::fill(line + (d.pad_w + d.w) * c, line + row, pad);
    Elem *pixels = line + d.pad_w * c;
    if (d.format == DLK_FORMAT_NHWC)
      std::memcpy(pixels, src + ih * d.w * c, static_cast<size_t>(d.w * c) * sizeof(Elem));
    else
      transpose_avx512(src + ih * d.w, c, d.w, d.h * d.w, sizeof(Elem), pixels, c);
    if (flip != 0)
      for (int64_t e = 0; e < d.w * c; ++e) pixels[e] = static_cast<Elem>(pixels[e] ^ flip);
  });
  std::fill(image + plan.hp * row, image + plan.image_pixels * c, pad);
}

template <class Conv>
void forward(const core::Conv2dArgs &a, int threads, const AmxConvPlan &plan, void *scratch) {
  using Elem = typename Conv::Elem;
  constexpr bool int8 = std::is_same_v<Conv, Int8Conv>;
  const dlk_conv2d_desc &d = a.desc;
  const bool nchw = d.format == DLK_FORMAT_NCHW;
  const Geometry g{d.c, d.k, d.kh, d.kw, plan.wp, a.oh, a.ow};
  ScratchCarver carve(scratch);
  auto *panels = carve.carve<Elem>(plan.weight_elems);
  auto *turned = carve.carve<Elem>(plan.turned_weight_elems);
  auto *image = carve.carve<Elem>(plan.image_pixels * d.c);
  auto *nhwc_dst = carve.carve<uint16_t>(plan.dst_elems);
  auto *sums = carve.carve<int32_t>(plan.sums);
  const auto *weights = static_cast<const Elem *>(a.weights);
  const int64_t row = plan.taps * d.c;  // an output channel's weights
  if (nchw) {  // KCRS into KRSC
    parallel_for(d.k, threads, [&](int64_t o, int) {
      transpose_avx512(weights + o * row, d.c, plan.taps, plan.taps, sizeof(Elem),
                       turned + o * row, d.c);
    });
    weights = turned;
  }
  pack_weights(weights, g, plan.taps, plan.blocks, threads, panels);
  // int8: src's zero point as packed (s8 shifted into u8), and the weights'
  // sums that compensate it.
  const Elem flip = int8 && d.src_type == DLK_DTYPE_S8 ? 0x80 : 0;
  const int32_t a_zero = int8 ? d.src_zero_point + (flip ? 128 : 0) : 0;
  const Elem pad = static_cast<Elem>(int8 ? static_cast<Elem>(d.src_zero_point) ^ flip : 0);
  if (a_zero != 0)
    parallel_for(d.k, threads, [&](int64_t o, int) {
      const auto *w = reinterpret_cast<const int8_t *>(weights) + o * row;
      sums[o] = std::accumulate(w, w + row, int32_t{0});
    });
  const int64_t tiles = plan.flat / kTile, panel = plan.taps * d.c * kTile;
  const bool tile_major = plan.weight_elems * int64_t{sizeof(Elem)} <= kTileMajorWeightBytes;
  const int64_t pixels = a.oh * a.ow;
  for (int64_t n = 0; n < d.n; ++n) {
    pad_image(a, plan, n, pad, flip, threads, image);
    uint16_t *out = nullptr;  // bf16: the NHWC image its tiles are rounded into
    if constexpr (!int8) out = nchw ? nhwc_dst : static_cast<uint16_t *>(a.dst) + n * pixels * d.k;
    parallel_for(tiles * plan.blocks, threads, [&](int64_t unit, int) {
      const int64_t tile = tile_major ? unit / plan.blocks : unit % tiles;
      const int64_t block = tile_major ? unit % plan.blocks : unit / tiles;
      ensure_tile_config(full_tiles());
      alignas(64) typename Conv::Acc acc[kTile][kTile];
      sum_tile<Conv>(g, image, tile * kTile, panels + block * panel, acc);
      if constexpr (int8)
        store_int8_tile(a, g, acc, n, tile * kTile, block, a_zero, sums);
      else
        store_bf16_tile(g, acc, tile * kTile, block, a.bias, d.relu != 0, out);
    });
    if (int8 || !nchw) continue;
    // NHWC (pixels x k) into NCHW (k x pixels), in runs of 64 pixels.
    auto *dst = static_cast<uint16_t *>(a.dst) + n * d.k * pixels;
    const int64_t runs = (pixels + 63) / 64;
    parallel_for(runs, threads, [&](int64_t run, int) {
      const int64_t p0 = run * 64, count = std::min<int64_t>(64, pixels - p0);
      transpose_avx512(nhwc_dst + p0 * d.k, count, d.k, d.k, sizeof(uint16_t), dst + p0, pixels);
    });
  }
}

}  // namespace

AmxConvPlan::AmxConvPlan(const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &d = a.desc;
  const bool int8 = is_int8(d);
  elem = int8 ? 1 : 2;
  hp = d.h + 2 * d.pad_h;
  wp = d.w + 2 * d.pad_w;
  flat = (a.oh * wp + kTile - 1) / kTile * kTile;
  taps = d.kh * d.kw;
  // The last tile's last tap reads position flat - 1 + (kh - 1) wp + kw - 1.
  image_pixels = std::max(hp * wp, flat + (d.kh - 1) * wp + d.kw - 1);
  blocks = (d.k + kTile - 1) / kTile;
  weight_elems = blocks * taps * d.c * kTile;
  const bool nchw = d.format == DLK_FORMAT_NCHW;
  turned_weight_elems = nchw ? d.k * taps * d.c : 0;
  dst_elems = nchw && !int8 ? a.oh * a.ow * d.k : 0;
  sums = int8 ? d.k : 0;
  const auto bytes_of = [](int64_t count, int64_t size) {
    return ScratchCarver::aligned(static_cast<size_t>(count * size));
  };
  bytes = bytes_of(weight_elems, elem) + bytes_of(turned_weight_elems, elem) +
          bytes_of(image_pixels * d.c, elem) + bytes_of(dst_elems, 2) + bytes_of(sums, 4);
}

bool conv2d_amx_applies(const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &d = a.desc;
  const bool bf16 = d.src_type == DLK_DTYPE_BF16 && d.weights_type == DLK_DTYPE_BF16 &&
                    d.dst_type == DLK_DTYPE_BF16;
  const bool int8 = is_int8(d) && d.weights_type == DLK_DTYPE_S8;
  const int64_t step = kRowBytes / (int8 ? 1 : 2);
  if (!(bf16 || int8) || d.groups != 1 || d.kh * d.kw < 2 || d.stride_h != 1 ||
      d.stride_w != 1 || d.dilation_h != 1 || d.dilation_w != 1 || d.c % step != 0 ||
      d.pad_h < 0 || d.pad_w < 0)
    return false;
  // The weights are packed on every call (NCHW's turned to KRSC first): below
  // as many output pixels as output channels (NHWC: half as many) that pass
  // costs more than the GEMM's im2col panels, which read NCHW's weights where
  // they lie. Intel Xeon model 167, ResNet-50 bf16 at batch 1, 1 thread, x
  // oneDNN-any, here / on the GEMM: res4b_3x3 (196 pixels, 256 channels) NCHW
  // 0.35 / 0.41, NHWC 0.61 / 0.47; res5b_3x3 (49, 512) 0.21 / 0.59, NHWC 0.38
  // / 0.60; res3b_3x3 (784, 128) 0.54 / 0.32, NHWC 0.72 / 0.28.
  const int64_t pixels = d.n * a.oh * a.ow;
  if ((d.format == DLK_FORMAT_NHWC ? 2 * pixels : pixels) < d.k) return false;
  return AmxConvPlan(a).bytes <= kScratchBound;
}

const char *conv2d_amx_name(const dlk_conv2d_desc &d) {
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  if (is_int8(d)) return nhwc ? "avx512:conv2d_amx_int8_nhwc" : "avx512:conv2d_amx_int8";
  return nhwc ? "avx512:conv2d_amx_bf16_nhwc" : "avx512:conv2d_amx_bf16";
}

void conv2d_amx_forward(const core::Conv2dArgs &a, int threads, const AmxConvPlan &plan,
                        void *scratch) {
  if (is_int8(a.desc))
    forward<Int8Conv>(a, threads, plan, scratch);
  else
    forward<Bf16Conv>(a, threads, plan, scratch);
}

}  // namespace dlk::cpu::kernels
