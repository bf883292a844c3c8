// Compiled with AVX-512 F/BW/DQ/BF16 and -mamx-tile -mamx-bf16 -mamx-int8;
// called only where GEMM of the convolution's dtype runs on AMX
// (conv2d_im2col.cpp, conv2d_backward_data.cpp). The scheme is in
// conv2d_amx_kernels.hpp.
#include "common/immintrin.hpp"  // first: before any <immintrin.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

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
// Panels up to this many bytes stay in a thread's L2 (2 MiB on the Xeons
// with AMX) beside its image.
constexpr int64_t kImagePerThreadWeightBytes = int64_t{3} << 19;

// What differs between bf16 and int8 (u8 src x s8 weights). spread_steps:
// from this many k steps a tile, a unit's sums go into dst a share of rows
// after each k step of the next unit's products, else all after its last
// (convolve_share).
struct Bf16Conv {
  using Elem = uint16_t;
  using Acc = float;
  using Products = Bf16Products;
  static constexpr int64_t spread_steps = 32;
};
struct Int8Conv {
  using Elem = uint8_t;
  using Acc = int32_t;
  using Products = U8S8Products;
  static constexpr int64_t spread_steps = std::numeric_limits<int64_t>::max();
};

bool is_int8(const dlk_conv2d_desc &d) {
  return d.src_type == DLK_DTYPE_U8 || d.src_type == DLK_DTYPE_S8;
}

// Where a tile's operands lie: positions q = oh x wq + ow of a phase plane of
// wq columns, `plane` elements from one plane to the next.
struct Geometry {
  int64_t c, k, kh, kw, sh, sw, wq, plane, oh, ow;
};

// acc = the 32 positions from q0 x the 32 output channels of `panel`, every
// tap and channel summed in the tiles; after_step(j, steps) after the
// products of k step j of `steps` are issued. Tap (r, s) reads phase plane
// (r % sh, s % sw), (r / sh) rows and (s / sw) columns on.
template <class Conv, class AfterStep>
void sum_tile(const Geometry &g, const typename Conv::Elem *image, int64_t q0,
              const typename Conv::Elem *panel, typename Conv::Acc (&acc)[kTile][kTile],
              AfterStep &&after_step) {
  using Elem = typename Conv::Elem;
  constexpr int64_t step = kRowBytes / int64_t{sizeof(Elem)};  // channels a k step
  const int64_t a_bytes = g.c * int64_t{sizeof(Elem)};
  const int64_t steps = g.kh * g.kw * (g.c / step);
  int64_t j = 0;
  constexpr int64_t b_bytes = kTile * 4;  // a k-group row of 32 output channels
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  // Tap (r, s) = (rq sh + pr, sq sw + ps).
  for (int64_t r = 0, pr = 0, rq = 0; r < g.kh; ++r) {
    for (int64_t s = 0, ps = 0, sq = 0; s < g.kw; ++s) {
      const Elem *a = image + ((pr * g.sw + ps) * g.plane + q0 + rq * g.wq + sq) * g.c;
      // Tap (r, s)'s k-group rows: tap x c / group rows of b_bytes.
      const Elem *b = panel + (r * g.kw + s) * g.c * kTile;
      for (int64_t c0 = 0; c0 < g.c; c0 += step) {
        _tile_loadd(4, a + c0, a_bytes);
        _tile_loadd(6, b + c0 * kTile, b_bytes);
        _tile_loadd(5, a + kHalf * g.c + c0, a_bytes);
        _tile_loadd(7, b + c0 * kTile + step, b_bytes);
        Conv::Products::template run<true, true>();
        after_step(j++, steps);
      }
      if (++ps == g.sw) ps = 0, ++sq;
    }
    if (++pr == g.sh) pr = 0, ++rq;
  }
  constexpr int64_t acc_bytes = sizeof acc[0];
  _tile_stored(0, &acc[0][0], acc_bytes);
  _tile_stored(1, &acc[0][kHalf], acc_bytes);
  _tile_stored(2, &acc[kHalf][0], acc_bytes);
  _tile_stored(3, &acc[kHalf][kHalf], acc_bytes);
  memory_barrier();
}

// The tile's positions [i0, i1) that are output pixels, rounded into the
// NHWC bf16 image `out` (bias, ReLU as the GEMM's store applies them).
void store_bf16_tile(const Geometry &g, const float (&acc)[kTile][kTile], int64_t q0,
                     int64_t block, const float *bias, bool relu, uint16_t *out, int64_t i0,
                     int64_t i1) {
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
  for (int64_t i = i0; i < i1; ++i) {
    const int64_t q = q0 + i, oh = q / g.wq, ow = q % g.wq;
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

// The tile's positions [first, last) that are output pixels into the NHWC
// image `out` of dst's type (int8: u8, s8; s32, f32) by the GEMM's s32
// store, a run of consecutive pixels of one output row at a time; src's zero
// point (as packed) `a_zero` compensated by the weights' sums first.
void store_int8_tile(const core::Conv2dArgs &a, const Geometry &g, int32_t (&acc)[kTile][kTile],
                     int64_t q0, int64_t block, int32_t a_zero, const int32_t *sums,
                     unsigned char *out, int64_t first, int64_t last) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t k0 = block * kTile, cols = std::min(kTile, g.k - k0);
  if (a_zero != 0)
    for (int64_t i = first; i < last; ++i)
      for (int64_t j = 0; j < cols; ++j)  // wrapping, as the GEMM's compensation
        acc[i][j] = static_cast<int32_t>(static_cast<uint32_t>(acc[i][j]) -
                                         static_cast<uint32_t>(a_zero) *
                                             static_cast<uint32_t>(sums[k0 + j]));
  const int64_t elem = static_cast<int64_t>(dlk_dtype_size(d.dst_type));
  for (int64_t i0 = first; i0 < last;) {
    const int64_t q = q0 + i0, oh = q / g.wq, ow = q % g.wq;
    if (oh >= g.oh || ow >= g.ow) {
      ++i0;
      continue;
    }
    const int64_t run = std::min(last - i0, g.ow - ow), pixel = oh * g.ow + ow;
    gemm_store_s32_avx512({&acc[i0][0], kTile, run, cols, out + (pixel * g.k + k0) * elem, g.k,
                           1, d.dst_type, 0.0f, a.multiplier,
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

// One image in flight: its padded phase planes, NCHW src's rows in NHWC (one
// per thread working on it, strides past 1), NCHW dst's NHWC image.
template <class Elem>
struct Workspace {
  Elem *image, *rows;
  unsigned char *nhwc_dst;
};

// What every image of a call shares.
template <class Conv>
struct Pass {
  using Elem = typename Conv::Elem;
  const core::Conv2dArgs &a;
  const AmxConvPlan &plan;
  Geometry g;
  const Elem *panels;
  const int32_t *sums;  // int8: the weights' sums per output channel
  int32_t a_zero;       // int8: src's zero point as packed
  Elem pad, flip;       // the padding (bf16 0, int8 src's zero point); s8 into u8
  bool tile_major;      // each tile of positions over every block of output channels
};

// Padded rows [y0, y1) of image n of src into the padded phase planes:
// padded pixel (y, x) to plane (y % sh, x % sw) at row y / sh, column x / sw;
// `pad` around the image and past the padded image's edge (with the last
// rows), each element xored with `flip`.
template <class Conv>
void pad_image(const Pass<Conv> &p, int64_t n, int64_t y0, int64_t y1, int threads,
               const Workspace<typename Conv::Elem> &ws) {
  using Elem = typename Conv::Elem;
  const dlk_conv2d_desc &d = p.a.desc;
  const AmxConvPlan &plan = p.plan;
  const int64_t c = d.c, sh = d.stride_h, sw = d.stride_w, line_elems = plan.wq * c;
  const Elem *src = static_cast<const Elem *>(p.a.src) + n * c * d.h * d.w;
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  const auto copy = [&](const Elem *from, int64_t count, Elem *to) {
    if (p.flip == 0)
      std::memcpy(to, from, static_cast<size_t>(count) * sizeof(Elem));
    else
      for (int64_t e = 0; e < count; ++e) to[e] = static_cast<Elem>(from[e] ^ p.flip);
  };
  // Padded row y of plane row y / sh in planes (y % sh, 0 .. sw - 1).
  parallel_for(y1 - y0, threads, [&](int64_t i, int t) {
    const int64_t y = y0 + i;
    Elem *lines = ws.image + ((y % sh) * sw * plan.plane + y / sh * plan.wq) * c;
    const int64_t ih = y - d.pad_h;
    if (y >= plan.hp || ih < 0 || ih >= d.h) {
      for (int64_t ps = 0; ps < sw; ++ps)
        std::fill_n(lines + ps * plan.plane * c, line_elems, p.pad);
      return;
    }
    if (sw == 1) {  // straight into the line
      std::fill_n(lines, d.pad_w * c, p.pad);
      std::fill(lines + (d.pad_w + d.w) * c, lines + line_elems, p.pad);
      Elem *pixels = lines + d.pad_w * c;
      if (nhwc) {
        copy(src + ih * d.w * c, d.w * c, pixels);
        return;
      }
      transpose_avx512(src + ih * d.w, c, d.w, d.h * d.w, sizeof(Elem), pixels, c);
      if (p.flip != 0) copy(pixels, d.w * c, pixels);
      return;
    }
    const Elem *row = src + ih * d.w * c;  // NHWC
    if (!nhwc) {
      Elem *turned = ws.rows + t * d.w * c;
      transpose_avx512(src + ih * d.w, c, d.w, d.h * d.w, sizeof(Elem), turned, c);
      row = turned;
    }
    for (int64_t ps = 0; ps < sw; ++ps) {
      Elem *line = lines + ps * plan.plane * c;
      for (int64_t xq = 0; xq < plan.wq; ++xq) {
        const int64_t iw = xq * sw + ps - d.pad_w;
        if (iw < 0 || iw >= d.w)
          std::fill_n(line + xq * c, c, p.pad);
        else
          copy(row + iw * c, c, line + xq * c);
      }
    }
  });
  if (y1 < plan.hq * sh) return;
  for (int64_t phase = 0; phase < sh * sw; ++phase)
    std::fill(ws.image + (phase * plan.plane + plan.hq * plan.wq) * c,
              ws.image + (phase + 1) * plan.plane * c, p.pad);
}

// Tiles [tile0, tile1) x blocks [block0, block1) of an image.
struct Share {
  int64_t tile0, tile1, block0, block1;
};

// The output pixel at or after flat position q (the pixels when past them).
int64_t pixel_at(const Geometry &g, int64_t q) {
  const int64_t oh = q / g.wq, ow = q % g.wq;
  if (oh >= g.oh) return g.oh * g.ow;
  return ow >= g.ow ? (oh + 1) * g.ow : oh * g.ow + ow;
}

// Share `share` of image n's dst, on up to `threads` threads: the padded
// rows its tiles read, its tiles, and (NCHW) the transposes of its pixels and
// channels.
template <class Conv>
void convolve_share(const Pass<Conv> &p, int64_t n, const Share &share, int threads,
                    const Workspace<typename Conv::Elem> &ws) {
  constexpr bool int8 = std::is_same_v<Conv, Int8Conv>;
  const dlk_conv2d_desc &d = p.a.desc;
  const AmxConvPlan &plan = p.plan;
  const Geometry &g = p.g;
  const bool nchw = d.format == DLK_FORMAT_NCHW;
  const int64_t panel = plan.taps * d.c * kTile, pixels = p.a.oh * p.a.ow;
  // The plane rows from the share's first position to its last tap's reach.
  const int64_t first_row = share.tile0 * kTile / g.wq;
  const int64_t last_row = (share.tile1 * kTile - 1 + plan.reach) / g.wq;
  pad_image(p, n, first_row * g.sh, std::min(plan.hq, last_row + 1) * g.sh, threads, ws);
  // The NHWC image of dst the tiles go into.
  const int64_t elem = static_cast<int64_t>(dlk_dtype_size(d.dst_type));
  auto *image_dst = static_cast<unsigned char *>(p.a.dst) + n * pixels * d.k * elem;
  unsigned char *out = nchw ? ws.nhwc_dst : image_dst;
  const int64_t tiles = share.tile1 - share.tile0, blocks = share.block1 - share.block0;
  const auto tile_of = [&](int64_t unit) {
    return share.tile0 + (p.tile_major ? unit / blocks : unit % tiles);
  };
  const auto block_of = [&](int64_t unit) {
    return share.block0 + (p.tile_major ? unit % blocks : unit / tiles);
  };
  // Each unit's sums are stored into dst while the next unit's products run:
  // read straight after the tile store, they waited for the products to
  // drain (a ninth of res3b_3x3's bf16 time on 1 thread), and issued after
  // all the next unit's products, their uops waited behind them. bf16's
  // inline store runs a share of rows after each k step where a tile has 32
  // or more (ResNet-50 NHWC with packed weights at batch 1, 1 thread, x
  // oneDNN-any: res3a_3x3 0.83-0.85 -> 0.88-0.89, res4b_3x3 0.96-0.97 ->
  // 1.05; with 18, res2a_3x3 lost 0.09-0.14); int8's, a call into the GEMM's
  // s32 store a run of pixels, all after the last (spread, it lost 0.1-0.3
  // on every NHWC layer; after the last step rather than after the tile
  // store, u8 dst res4a_3x3 and res4b_3x3 0.70-0.81 -> 0.85-0.93).
  parallel_for_shares(tiles * blocks, threads, [&](int64_t begin, int64_t end) {
    ensure_tile_config(full_tiles());
    alignas(64) typename Conv::Acc acc[2][kTile][kTile];
    const auto store = [&](int64_t unit, int64_t i0, int64_t i1) {
      const int64_t q0 = tile_of(unit) * kTile, block = block_of(unit);
      if constexpr (int8)
        store_int8_tile(p.a, g, acc[unit % 2], q0, block, p.a_zero, p.sums, out, i0, i1);
      else
        store_bf16_tile(g, acc[unit % 2], q0, block, p.a.bias, d.relu != 0,
                        reinterpret_cast<uint16_t *>(out), i0, i1);
    };
    for (int64_t unit = begin; unit < end; ++unit)
      sum_tile<Conv>(g, ws.image, tile_of(unit) * kTile, p.panels + block_of(unit) * panel,
                     acc[unit % 2], [&](int64_t j, int64_t steps) {
                       if (unit == begin) return;
                       if (steps >= Conv::spread_steps)
                         store(unit - 1, kTile * j / steps, kTile * (j + 1) / steps);
                       else if (j + 1 == steps)
                         store(unit - 1, 0, kTile);
                     });
    if (end > begin) store(end - 1, 0, kTile);
  });
  if (!nchw) return;
  // NHWC (pixels x k) into NCHW (k x pixels), in runs of 64 pixels.
  const int64_t p0 = pixel_at(g, share.tile0 * kTile), p1 = pixel_at(g, share.tile1 * kTile);
  const int64_t k0 = share.block0 * kTile, k1 = std::min(d.k, share.block1 * kTile);
  parallel_for((p1 - p0 + 63) / 64, threads, [&](int64_t run, int) {
    const int64_t from = p0 + run * 64, count = std::min<int64_t>(64, p1 - from);
    transpose_avx512(ws.nhwc_dst + (from * d.k + k0) * elem, count, k1 - k0, d.k,
                     static_cast<size_t>(elem), image_dst + (k0 * pixels + from) * elem, pixels);
  });
}

// src's zero point as the planes hold it (s8 shifted into u8) and the
// element xored into each (int8; bf16 neither).
template <class Conv>
struct SrcCoding {
  using Elem = typename Conv::Elem;
  explicit SrcCoding(const dlk_conv2d_desc &d) {
    if constexpr (std::is_same_v<Conv, Int8Conv>) {
      flip = d.src_type == DLK_DTYPE_S8 ? 0x80 : 0;
      a_zero = d.src_zero_point + (flip ? 128 : 0);
      pad = static_cast<Elem>(static_cast<Elem>(d.src_zero_point) ^ flip);
    }
  }
  Elem flip = 0, pad = 0;  // pad: the padding as packed
  int32_t a_zero = 0;
};

template <class Conv>
void pack(const core::Conv2dArgs &a, int threads, const AmxConvPlan &plan, void *panels_out,
          int32_t *sums, void *turned_out) {
  using Elem = typename Conv::Elem;
  const dlk_conv2d_desc &d = a.desc;
  auto *panels = static_cast<Elem *>(panels_out);
  auto *turned = static_cast<Elem *>(turned_out);
  const auto *weights = static_cast<const Elem *>(conv2d_amx_weights_krsc(a, threads, turned));
  const int64_t row = plan.taps * d.c;  // an output channel's weights
  const Geometry g{d.c, d.k, d.kh, d.kw, d.stride_h, d.stride_w, plan.wq, plan.plane, a.oh, a.ow};
  pack_weights(weights, g, plan.taps, plan.blocks, threads, panels);
  // int8: the weights' sums that compensate src's zero point.
  if (SrcCoding<Conv>(d).a_zero != 0)
    parallel_for(d.k, threads, [&](int64_t o, int) {
      const auto *w = reinterpret_cast<const int8_t *>(weights) + o * row;
      sums[o] = std::accumulate(w, w + row, int32_t{0});
    });
}

template <class Conv>
void forward(const core::Conv2dArgs &a, int threads, const AmxConvPlan &plan, void *scratch,
             const AmxConvWeights *prepacked) {
  using Elem = typename Conv::Elem;
  const dlk_conv2d_desc &d = a.desc;
  ScratchCarver carve(scratch);
  AmxConvWeights weights{};
  if (prepacked) {
    weights = *prepacked;
  } else {
    void *panels = carve.carve<Elem>(plan.weight_elems);
    void *turned = carve.carve<Elem>(plan.turned_weight_elems);
    auto *sums = carve.carve<int32_t>(plan.sums);
    pack<Conv>(a, threads, plan, panels, sums, turned);
    weights = {panels, sums};
  }
  const Geometry g{d.c, d.k, d.kh, d.kw, d.stride_h, d.stride_w, plan.wq, plan.plane, a.oh, a.ow};
  const SrcCoding<Conv> coding(d);
  const Pass<Conv> pass{a,
                        plan,
                        g,
                        static_cast<const Elem *>(weights.panels),
                        weights.sums,
                        coding.a_zero,
                        coding.pad,
                        coding.flip,
                        plan.weight_elems * int64_t{sizeof(Elem)} <= kTileMajorWeightBytes};
  std::vector<Workspace<Elem>> spaces;
  for (int64_t w = 0; w < plan.workspaces; ++w) {
    Workspace<Elem> ws{};
    ws.image = carve.carve<Elem>(plan.image_elems);
    ws.rows = carve.carve<Elem>(plan.row_elems);
    ws.nhwc_dst = carve.carve<unsigned char>(plan.dst_bytes);
    spaces.push_back(ws);
  }
  const int64_t tiles = plan.flat / kTile;
  const Share whole{0, tiles, 0, plan.blocks};
  const int64_t workers = plan.workspaces;
  if (workers == 1) {
    for (int64_t n = 0; n < d.n; ++n) convolve_share(pass, n, whole, threads, spaces[0]);
    return;
  }
  if (plan.image_per_thread) {
    parallel_for(d.n, static_cast<int>(workers),
                 [&](int64_t n, int t) { convolve_share(pass, n, whole, 1, spaces[t]); });
    return;
  }
  // Each thread a band of tiles (or of blocks, where the panels are swept
  // once, or where the tiles are fewer than the threads and the blocks) of
  // each image, the rows its tiles read padded into its own workspace.
  const bool by_tiles = pass.tile_major ? tiles >= workers || tiles >= plan.blocks
                                        : plan.blocks < workers && tiles > plan.blocks;
  for (int64_t n = 0; n < d.n; ++n)
    parallel_for(workers, static_cast<int>(workers), [&](int64_t i, int) {
      Share share = whole;
      if (by_tiles)
        share.tile0 = tiles * i / workers, share.tile1 = tiles * (i + 1) / workers;
      else
        share.block0 = plan.blocks * i / workers, share.block1 = plan.blocks * (i + 1) / workers;
      if (share.tile0 < share.tile1 && share.block0 < share.block1)
        convolve_share(pass, n, share, 1, spaces[i]);
    });
}

}  // namespace

PhasePlanes::PhasePlanes(const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &d = a.desc;
  hp = d.h + 2 * d.pad_h;
  wp = d.w + 2 * d.pad_w;
  hq = (hp + d.stride_h - 1) / d.stride_h;
  wq = (wp + d.stride_w - 1) / d.stride_w;
  flat = (a.oh * wq + kTile - 1) / kTile * kTile;
  taps = d.kh * d.kw;
  reach = (d.kh - 1) / d.stride_h * wq + (d.kw - 1) / d.stride_w;
}

AmxConvPlan::AmxConvPlan(const core::Conv2dArgs &a, int threads) : PhasePlanes(a) {
  const dlk_conv2d_desc &d = a.desc;
  const bool int8 = is_int8(d);
  elem = int8 ? 1 : 2;
  // The last tile's last tap reads position flat - 1 + reach.
  plane = std::max(hq * wq, flat + reach);
  blocks = (d.k + kTile - 1) / kTile;
  weight_elems = blocks * taps * d.c * kTile;
  const bool nchw = d.format == DLK_FORMAT_NCHW;
  turned_weight_elems = nchw ? d.k * taps * d.c : 0;
  sums = int8 ? d.k : 0;
  const auto bytes_of = [](int64_t count, int64_t size) {
    return ScratchCarver::aligned(static_cast<size_t>(count * size));
  };
  weights_bytes = bytes_of(weight_elems, elem) + bytes_of(turned_weight_elems, elem) +
                  bytes_of(sums, 4);
  const int64_t team = std::max(threads, 1);
  image_elems = d.stride_h * d.stride_w * plane * d.c;
  dst_bytes = nchw ? a.oh * a.ow * d.k * static_cast<int64_t>(dlk_dtype_size(d.dst_type)) : 0;
  // An image a thread at batch >= threads (or a batch that splits evenly)
  // where every thread can keep all the panels in its L2: no thread waits on
  // another within an image. Else every thread on each image in turn, each
  // on its share of the tiles (of the output channels, past
  // kTileMajorWeightBytes): res5b_3x3's 4.7 MB of bf16 panels streamed by
  // both threads an image each ran 0.85x as fast as halves of them
  // (Intel Xeon model 167, batch 32, 2 threads). Either way each thread pads
  // the rows it reads into a workspace of its own: with the threads padding
  // parts of one image, each reading all of it (lines the other core had
  // written), ResNet-50's bf16 3x3 at batch 1 ran 0.70-0.85x as fast on 2
  // threads as on 1 (x oneDNN-any).
  const bool panels_in_l2 = weight_elems * elem <= kImagePerThreadWeightBytes;
  image_per_thread =
      panels_in_l2 && d.n >= team && (d.n % team == 0 || d.n >= 4 * team) && team > 1;
  for (workspaces = team;; workspaces = 1) {
    const int64_t row_threads = workspaces == 1 ? team : 1;
    row_elems = nchw && d.stride_w > 1 ? row_threads * d.w * d.c : 0;
    const size_t workspace_bytes = bytes_of(image_elems, elem) + bytes_of(row_elems, elem) +
                                   bytes_of(dst_bytes, 1);
    bytes = weights_bytes + static_cast<size_t>(workspaces) * workspace_bytes;
    if (workspaces == 1 || bytes <= kScratchBound) break;
  }
  image_per_thread = image_per_thread && workspaces > 1;
}

bool conv2d_amx_applies(const core::Conv2dArgs &a, int threads, AmxWeights weights) {
  const dlk_conv2d_desc &d = a.desc;
  const bool bf16 = d.src_type == DLK_DTYPE_BF16 && d.weights_type == DLK_DTYPE_BF16 &&
                    d.dst_type == DLK_DTYPE_BF16;
  const bool int8 = is_int8(d) && d.weights_type == DLK_DTYPE_S8;
  const int64_t step = kRowBytes / (int8 ? 1 : 2);
  if (!(bf16 || int8) || d.groups != 1 || d.kh * d.kw < 2 || d.dilation_h != 1 ||
      d.dilation_w != 1 || d.c % step != 0 || d.pad_h < 0 || d.pad_w < 0)
    return false;
  // Packed on every call (NCHW's turned to KRSC first), the weights cost more
  // than the GEMM's im2col panels (which read NCHW's weights where they lie)
  // below as many output pixels as output channels (NHWC: half as many).
  // Intel Xeon model 167, ResNet-50 bf16 at batch 1, 1 thread, x oneDNN-any,
  // here / on the GEMM: res4b_3x3 (196 pixels, 256 channels) NCHW 0.35 /
  // 0.41, NHWC 0.61 / 0.47; res5b_3x3 (49, 512) 0.21 / 0.59, NHWC 0.38 /
  // 0.60; res3b_3x3 (784, 128) 0.54 / 0.32, NHWC 0.72 / 0.28. Packed before
  // the call, no floor: res4b_3x3 NCHW 0.80-0.86, NHWC 0.94-0.97; res5b_3x3
  // 0.94-0.95, 0.99 (the GEMM 0.48-0.60). Backward data's turned weights,
  // packed in one pass, against the GEMM and col2im: res4b_3x3 (196 pixels,
  // 256 channels) NCHW 0.44 / 0.26; res5b_3x3 (49, 512) 0.29 / 0.44, NHWC
  // 0.43 / 0.41: half as many pixels as channels, either format.
  const int64_t pixels = d.n * a.oh * a.ow;
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  if (weights == AmxWeights::per_call && (nhwc ? 2 * pixels : pixels) < d.k) return false;
  if (weights == AmxWeights::turned && 2 * pixels < d.k) return false;
  const AmxConvPlan plan(a, threads);
  return plan.bytes - (weights == AmxWeights::per_call ? 0 : plan.weights_bytes) <= kScratchBound;
}

const char *conv2d_amx_name(const dlk_conv2d_desc &d) {
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  if (is_int8(d)) return nhwc ? "avx512:conv2d_amx_int8_nhwc" : "avx512:conv2d_amx_int8";
  return nhwc ? "avx512:conv2d_amx_bf16_nhwc" : "avx512:conv2d_amx_bf16";
}

const void *conv2d_amx_weights_krsc(const core::Conv2dArgs &a, int threads, void *stage) {
  const dlk_conv2d_desc &d = a.desc;
  if (d.format == DLK_FORMAT_NHWC) return a.weights;
  const int64_t taps = d.kh * d.kw, row = taps * d.c;  // an output channel's weights
  const size_t elem = is_int8(d) ? 1 : 2;
  const auto *weights = static_cast<const unsigned char *>(a.weights);
  auto *krsc = static_cast<unsigned char *>(stage);
  parallel_for(d.k, threads, [&](int64_t o, int) {
    transpose_avx512(weights + o * row * static_cast<int64_t>(elem), d.c, taps, taps, elem,
                     krsc + o * row * static_cast<int64_t>(elem), d.c);
  });
  return stage;
}

void conv2d_amx_pack_weights(const core::Conv2dArgs &a, int threads, const AmxConvPlan &plan,
                             void *panels, int32_t *sums, void *turned) {
  if (is_int8(a.desc))
    pack<Int8Conv>(a, threads, plan, panels, sums, turned);
  else
    pack<Bf16Conv>(a, threads, plan, panels, sums, turned);
}

void conv2d_amx_pack_turned_weights(const core::Conv2dArgs &a, int threads,
                                    const AmxConvPlan &plan,
                                    const std::vector<int64_t> &source_taps, void *panels,
                                    void *stage) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t taps = d.kh * d.kw, pairs = d.k / 2;
  const auto turned_taps = static_cast<int64_t>(source_taps.size());
  const auto *weights = static_cast<const uint16_t *>(conv2d_amx_weights_krsc(a, threads, stage));
  // Block b of the turned convolution's output channels (src's channels
  // 32 b ..), its tap t (the kernel's tap source_taps[t]), k-pair u of its
  // input channels (dst's channels 2 u, 2 u + 1): one row of 32 pairs, the
  // two channels' runs of 32 interleaved (zero past src's channels).
  auto *out = static_cast<uint32_t *>(panels);
  parallel_for(plan.blocks * turned_taps, threads, [&](int64_t unit, int) {
    const int64_t b = unit / turned_taps, t = unit % turned_taps, c0 = b * kTile;
    const int64_t left = d.c - c0;
    const auto mask = static_cast<__mmask32>(left >= kTile ? ~0u : (1u << left) - 1u);
    uint32_t *row = out + ((b * turned_taps + t) * pairs) * kTile;
    for (int64_t u = 0; u < pairs; ++u, row += kTile) {
      const uint16_t *even = weights + (2 * u * taps + source_taps[t]) * d.c + c0;
      const __m512i e = _mm512_maskz_loadu_epi16(mask, even);
      const __m512i o = _mm512_maskz_loadu_epi16(mask, even + taps * d.c);
      const auto pair = [](__m256i lo, __m256i hi) {
        return _mm512_or_si512(_mm512_maskz_cvtepu16_epi32(0xffff, lo),
                               _mm512_maskz_slli_epi32(
                                   0xffff, _mm512_maskz_cvtepu16_epi32(0xffff, hi), 16));
      };
      _mm512_storeu_si512(row, pair(_mm512_castsi512_si256(e), _mm512_castsi512_si256(o)));
      _mm512_storeu_si512(row + kHalf, pair(_mm512_extracti64x4_epi64(e, 1),
                                            _mm512_extracti64x4_epi64(o, 1)));
    }
  });
}

void conv2d_amx_forward(const core::Conv2dArgs &a, int threads, const AmxConvPlan &plan,
                        void *scratch, const AmxConvWeights *prepacked) {
  if (is_int8(a.desc))
    forward<Int8Conv>(a, threads, plan, scratch, prepacked);
  else
    forward<Bf16Conv>(a, threads, plan, scratch, prepacked);
}

}  // namespace dlk::cpu::kernels
