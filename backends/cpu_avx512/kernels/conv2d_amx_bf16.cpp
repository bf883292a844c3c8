// Compiled with AVX-512 F/BW/DQ/BF16 and -mamx-tile -mamx-bf16; called only
// where bf16 GEMM runs on AMX (conv2d_im2col.cpp). The scheme is in
// conv2d_amx_kernels.hpp.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "backends/cpu_avx512/kernels/conv2d_amx_kernels.hpp"
#include "backends/cpu_avx512/kernels/gemm_tile_store_avx512.inc"
#include "backends/cpu_avx512/kernels/transpose_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"
#include "backends/cpu_avx512/scratch.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/amx_tiles.inc"

constexpr int64_t kTile = 32;  // positions and output channels of a C tile; bf16 k of a step
constexpr int64_t kHalf = 16;  // rows of a tile
// Weights beyond this many bytes are swept once, each block of output channels
// over all positions, rather than once per tile of positions (their panels
// would no longer stay in L2 between tiles).
constexpr int64_t kTileMajorWeightBytes = int64_t{1} << 20;

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
void sum_tile(const Geometry &g, const uint16_t *image, int64_t q0, const uint16_t *panel,
              float (&acc)[kTile][kTile]) {
  const int64_t a_bytes = g.c * int64_t{sizeof(uint16_t)};
  constexpr int64_t b_bytes = 2 * kTile * int64_t{sizeof(uint16_t)};  // a k-pair row
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  for (int64_t r = 0; r < g.kh; ++r)
    for (int64_t s = 0; s < g.kw; ++s) {
      const uint16_t *a = image + (q0 + r * g.wp + s) * g.c;
      const uint16_t *b = panel + (r * g.kw + s) * g.c * kTile;
      for (int64_t c0 = 0; c0 < g.c; c0 += kTile) {
        _tile_loadd(4, a + c0, a_bytes);
        _tile_loadd(6, b + c0 * kTile, b_bytes);
        _tile_loadd(5, a + kHalf * g.c + c0, a_bytes);
        _tile_loadd(7, b + c0 * kTile + kTile, b_bytes);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
      }
    }
  constexpr int64_t acc_bytes = sizeof acc[0];
  _tile_stored(0, &acc[0][0], acc_bytes);
  _tile_stored(1, &acc[0][kHalf], acc_bytes);
  _tile_stored(2, &acc[kHalf][0], acc_bytes);
  _tile_stored(3, &acc[kHalf][kHalf], acc_bytes);
  memory_barrier();
}

// The tile's positions that are output pixels, rounded into the NHWC image
// `out` (bias, ReLU as the GEMM's store applies them).
void store_tile(const Geometry &g, const float (&acc)[kTile][kTile], int64_t q0, int64_t block,
                const float *bias, bool relu, uint16_t *out) {
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

// The weights (KRSC) as k-pair panels of 32 output channels, taps outer and
// channels inner: pair row u of block b holds unit u of its channels' rows.
void pack_weights(const uint16_t *krsc, const Geometry &g, int64_t taps, int64_t blocks,
                  int threads, uint16_t *panels) {
  const int64_t units = taps * g.c / 2, panel = taps * g.c * kTile;
  parallel_for(blocks, threads, [&](int64_t b, int) {
    const int64_t rows = std::min(kTile, g.k - b * kTile);
    uint16_t *out = panels + b * panel;
    if (rows < kTile) std::memset(out, 0, static_cast<size_t>(panel) * sizeof(uint16_t));
    transpose_avx512(krsc + b * kTile * taps * g.c, rows, units, units, 4, out, kTile);
  });
}

// Image n of src into the zero-padded NHWC buffer.
void pad_image(const core::Conv2dArgs &a, const AmxConvPlan &plan, int64_t n, int threads,
               uint16_t *image) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t c = d.c, row = plan.wp * c;
  const auto *src = static_cast<const uint16_t *>(a.src) + n * c * d.h * d.w;
  const size_t elem = sizeof(uint16_t);
  parallel_for(plan.hp, threads, [&](int64_t y, int) {
    uint16_t *line = image + y * row;
    const int64_t ih = y - d.pad_h;
    if (ih < 0 || ih >= d.h) {
      std::memset(line, 0, static_cast<size_t>(row) * elem);
      return;
    }
    std::memset(line, 0, static_cast<size_t>(d.pad_w * c) * elem);
    std::memset(line + (d.pad_w + d.w) * c, 0, static_cast<size_t>(d.pad_w * c) * elem);
    uint16_t *pixels = line + d.pad_w * c;
    if (d.format == DLK_FORMAT_NHWC)
      std::memcpy(pixels, src + ih * d.w * c, static_cast<size_t>(d.w * c) * elem);
    else
      transpose_avx512(src + ih * d.w, c, d.w, d.h * d.w, elem, pixels, c);
  });
  const int64_t tail = plan.image_pixels - plan.hp * plan.wp;
  std::memset(image + plan.hp * row, 0, static_cast<size_t>(tail * c) * elem);
}

}  // namespace

AmxConvPlan::AmxConvPlan(const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &d = a.desc;
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
  dst_elems = nchw ? a.oh * a.ow * d.k : 0;
  const size_t elem = sizeof(uint16_t);
  bytes = ScratchCarver::aligned(static_cast<size_t>(weight_elems) * elem) +
          ScratchCarver::aligned(static_cast<size_t>(turned_weight_elems) * elem) +
          ScratchCarver::aligned(static_cast<size_t>(image_pixels * d.c) * elem) +
          ScratchCarver::aligned(static_cast<size_t>(dst_elems) * elem);
}

bool conv2d_amx_bf16_applies(const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &d = a.desc;
  if (d.src_type != DLK_DTYPE_BF16 || d.weights_type != DLK_DTYPE_BF16 ||
      d.dst_type != DLK_DTYPE_BF16 || d.groups != 1 || d.kh * d.kw < 2 || d.stride_h != 1 ||
      d.stride_w != 1 || d.dilation_h != 1 || d.dilation_w != 1 || d.c % kTile != 0 ||
      d.pad_h < 0 || d.pad_w < 0)
    return false;
  // The weights are packed on every call (NCHW's turned to KRSC first): below
  // as many output pixels as output channels (NHWC: half as many) that pass
  // costs more than the GEMM's im2col panels, which read NCHW's weights where
  // they lie. Intel Xeon model 167, ResNet-50 at batch 1, 1 thread, x
  // oneDNN-any, here / on the GEMM: res4b_3x3 (196 pixels, 256 channels) NCHW
  // 0.35 / 0.41, NHWC 0.61 / 0.47; res5b_3x3 (49, 512) 0.21 / 0.59, NHWC 0.38
  // / 0.60; res3b_3x3 (784, 128) 0.54 / 0.32, NHWC 0.72 / 0.28.
  const int64_t pixels = d.n * a.oh * a.ow;
  if ((d.format == DLK_FORMAT_NHWC ? 2 * pixels : pixels) < d.k) return false;
  return AmxConvPlan(a).bytes <= kScratchBound;
}

const char *conv2d_amx_bf16_name(const dlk_conv2d_desc &d) {
  return d.format == DLK_FORMAT_NHWC ? "avx512:conv2d_amx_bf16_nhwc" : "avx512:conv2d_amx_bf16";
}

void conv2d_amx_bf16_forward(const core::Conv2dArgs &a, int threads, const AmxConvPlan &plan,
                             void *scratch) {
  const dlk_conv2d_desc &d = a.desc;
  const bool nchw = d.format == DLK_FORMAT_NCHW;
  const Geometry g{d.c, d.k, d.kh, d.kw, plan.wp, a.oh, a.ow};
  ScratchCarver carve(scratch);
  auto *panels = carve.carve<uint16_t>(plan.weight_elems);
  auto *turned = carve.carve<uint16_t>(plan.turned_weight_elems);
  auto *image = carve.carve<uint16_t>(plan.image_pixels * d.c);
  auto *nhwc_dst = carve.carve<uint16_t>(plan.dst_elems);
  const auto *weights = static_cast<const uint16_t *>(a.weights);
  if (nchw) {  // KCRS into KRSC
    parallel_for(d.k, threads, [&](int64_t o, int) {
      const int64_t at = o * d.c * plan.taps;
      transpose_avx512(weights + at, d.c, plan.taps, plan.taps, sizeof(uint16_t), turned + at,
                       d.c);
    });
    weights = turned;
  }
  pack_weights(weights, g, plan.taps, plan.blocks, threads, panels);
  const int64_t tiles = plan.flat / kTile, panel = plan.taps * d.c * kTile;
  const bool tile_major = plan.weight_elems * int64_t{sizeof(uint16_t)} <= kTileMajorWeightBytes;
  const int64_t pixels = a.oh * a.ow;
  for (int64_t n = 0; n < d.n; ++n) {
    pad_image(a, plan, n, threads, image);
    uint16_t *out = nchw ? nhwc_dst : static_cast<uint16_t *>(a.dst) + n * pixels * d.k;
    parallel_for(tiles * plan.blocks, threads, [&](int64_t unit, int) {
      const int64_t tile = tile_major ? unit / plan.blocks : unit % tiles;
      const int64_t block = tile_major ? unit % plan.blocks : unit / tiles;
      ensure_tile_config(full_tiles());
      alignas(64) float acc[kTile][kTile];
      sum_tile(g, image, tile * kTile, panels + block * panel, acc);
      store_tile(g, acc, tile * kTile, block, a.bias, d.relu != 0, out);
    });
    if (!nchw) continue;
    // NHWC (pixels x k) into NCHW (k x pixels), in runs of 64 pixels.
    auto *dst = static_cast<uint16_t *>(a.dst) + n * d.k * pixels;
    const int64_t runs = (pixels + 63) / 64;
    parallel_for(runs, threads, [&](int64_t run, int) {
      const int64_t p0 = run * 64, count = std::min<int64_t>(64, pixels - p0);
      transpose_avx512(nhwc_dst + p0 * d.k, count, d.k, d.k, sizeof(uint16_t), dst + p0, pixels);
    });
  }
}

}  // namespace dlk::cpu::kernels
