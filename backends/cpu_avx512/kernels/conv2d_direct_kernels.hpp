// Direct convolution forward for few output channels per group (at most 16),
// f32 NCHW without padding: the 16 lanes of a vector are the output channels,
// so each tap is one vector of weights times a broadcast input value per
// output pixel. The GEMM lowering of such layers (LeNet-5 conv2: 16 channels,
// 6 x 5 x 5 taps, 10 x 10 pixels) packs an im2col element for every 16
// multiply-adds, and packing outweighed the products.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/cpu_avx512/cpu_peak.hpp"
#include "backends/cpu_avx512/scratch.hpp"
#include "core/backend.hpp"

namespace dlk::cpu::kernels {

// `a` as NCHW: an NHWC convolution that runs an NCHW kernel on its tensors
// staged (or, with one input channel, as they lie) asks that kernel's rule of
// this twin.
inline core::Conv2dArgs nchw_twin(const core::Conv2dArgs &a) {
  core::Conv2dArgs twin = a;
  twin.desc.format = DLK_FORMAT_NCHW;
  return twin;
}

// The shapes conv2d_direct_few_channels_avx512 takes: f32 NCHW, a kernel
// larger than 1x1, at most kMaxDirectTaps taps (c / groups x kh x kw), and 8 to
// 16 output channels per group, or 4 to 16 with one input channel per group
// (fewer would leave most lanes idle; with one input channel the GEMM's k is
// only kh x kw). Padding is taken below 16 output channels per group (the
// wide-row kernel's 16 and more keep it), where a group's zero-padded image,
// copied per task, holds at most kMaxDirectPaddedFloats: LeNet-5 conv1 (pad 2,
// 1 > 6 channels) ran on the depthwise kernel, whose outputs in the padding's
// reach take a per-output path, at 6.5 GFLOP/s (Intel Xeon model 207, 1 thread).
constexpr int64_t kMaxDirectTaps = 1024;
constexpr int64_t kMaxDirectPaddedFloats = int64_t{1} << 16;
inline bool conv2d_direct_few_channels_applies(const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t kg = a.k_per_group, cg = a.c_per_group;
  if (d.src_type != DLK_DTYPE_F32 || d.format != DLK_FORMAT_NCHW || d.kh * d.kw <= 1 ||
      cg * d.kh * d.kw > kMaxDirectTaps || kg > 16 || (kg < 8 && (cg != 1 || kg < 4)))
    return false;
  if (d.pad_h == 0 && d.pad_w == 0) return true;
  // (Validation bounds the padding only through the output size.)
  const int64_t limit = kMaxDirectPaddedFloats;
  return kg < 16 && d.pad_h < limit && d.pad_w < limit && d.h < limit && d.w < limit &&
         cg * (d.h + 2 * d.pad_h) * (d.w + 2 * d.pad_w) <= limit;
}
// The scratch conv2d_direct_few_channels_avx512 needs: a padded image per
// thread where the convolution is padded, else none.
size_t conv2d_direct_few_channels_scratch_bytes(const core::Conv2dArgs &args, int threads);
// dst = conv(src, weights) + bias, ReLU where asked, images on up to `threads`
// threads; `scratch` holds conv2d_direct_few_channels_scratch_bytes.
void conv2d_direct_few_channels_avx512(const core::Conv2dArgs &args, int threads, void *scratch);

// Wide-row direct convolution (NCHW, stride 1 or 2, no dilation, one group;
// conv2d_wide_rows_avx512.cpp): each image copied once into zero-padded
// planes, whose shifted rows are the im2col rows themselves, so the
// micro-kernel reads B from the image and nothing is packed per pixel; the
// output pixels run over the padded width, and the columns past ow are
// computed and dropped; the weights are read as they lie. At stride 2 each
// channel's padded plane is split into its 4 phases (even / odd rows x even /
// odd columns), planes of their own: output pixel (y, x) reads padded element
// (2y + r, 2x + s), which is element (y + r / 2, x + s / 2) of phase (r % 2,
// s % 2), so every tap's row is again a phase plane shifted, at stride 1.
// f16, and bf16 where the CPU's vdpbf16ps does not outpace its FMAs, are
// widened to f32 as the image is padded, the weights once per call; bf16
// elsewhere keeps its bits in k-pairs (`pairs`): each 32-bit element of the
// padded planes holds channels 2u and 2u + 1 of a pixel, each of the
// weights' the same two channels of a tap, and vdpbf16ps multiplies a pair
// at a time, half the instructions of the widened kernel. Either way the sums
// are f32, rounded once into dst. int8 (u8 or s8 src, forward) keeps k-quads
// (`quads`): each 32-bit element holds channels 4u .. 4u + 3 of a pixel as u8
// (s8 shifted by 128, as the integer GEMM packs A), padding the zero point
// (shifted likewise), each of the weights' the same four channels of a tap
// as s8, and vpdpbusd adds four products a lane into s32 sums that start at
// -(zero point x the channel's weight sum), so that every tap adds (src -
// src_zero_point) x weight, padding nothing, modulo 2^32 as dlk.h's integer
// rule: bit-exact. s32 dst takes the sums (and ReLU) straight; f32, s8 and u8
// dst take them through an image of s32 sums and a vector store by the
// integer GEMM's rule (scale, bias, ReLU, requantization: the same bits). The
// layout of its scratch: the taps' offsets, the weights widened, paired or
// quadded (f16/bf16/int8) or turned around (backward data), int8's starting
// sums, and per thread that holds one the padded image and (f16/bf16, int8
// but to s32) an image of sums.
// Where several stride-1 convolutions of one image with the same padding
// above and left read one padded copy of it (backward data's phases,
// conv2d_backward_data_wide_rows_phases.cpp): its rows and pitch, at least
// each one's own, and the widest kernel among them (the slack past the last
// plane); zero: a convolution's own.
struct WideRowsImageShape {
  int64_t rows = 0, pitch = 0, kw = 0;
};

struct WideRowsPlan {
  // turned: the weights are turned around first (backward data, see
  // conv2d_wide_rows_applies), else read as they lie.
  WideRowsPlan(const core::Conv2dArgs &args, int threads, bool turned = false,
               WideRowsImageShape shape = {});
  bool turned = false;
  bool pairs = false;  // bf16 k-pairs for vdpbf16ps
  bool quads = false;  // int8 k-quads for vpdpbusd; neither: f32
  int64_t units = 0;   // input channels, or their pairs or quads: the planes of an image
  int64_t sh = 1, sw = 1;  // the strides: phases per channel sh x sw
  // A phase plane: hp rows of wp (the wide rows' pitch), phase_plane floats;
  // a channel's sh x sw phases, plane floats (stride 1: the padded plane).
  int64_t hp = 0, wp = 0, phase_plane = 0, plane = 0;
  int64_t wide_columns = 0, tiles = 0;  // oh x wp, in tiles of 48
  int64_t channel_block = 0, chunk_tiles = 0;
  bool images_per_thread = false;  // each thread an image at a time, else all threads on one
  int64_t buffers = 0, image_floats = 0, staged_floats = 0, weight_floats = 0, start_floats = 0;
  int64_t offsets_bytes = 0;
  size_t bytes = 0;
};

// Which lanes of 16 consecutive wide columns are output pixels: per output
// row they touch, the lanes with x < ow and y < oh, and the dst index lane 0
// would have (lanes outside `mask` are never touched).
struct WideRowsSegment {
  int64_t base;
  uint16_t mask;
};
struct WideRowsSegments {
  int count = 0;
  WideRowsSegment seg[17];  // at most 16 rows, plus a partial one at each end
};
// A tile of the wide-row kernel (conv2d_wide_rows_tile_avx512.inc): `rows`
// output channels x `vectors` of 16 wide columns over kc taps, a[r lda + k]
// tap k's weight of channel r, tap k's B row at b + off[k]; first: start from
// bias (or 0), else from dst; last: apply ReLU as stored.
using WideRowsTile = void (*)(const float *a, int64_t lda, const float *b, const int32_t *off,
                              int64_t kc, float *dst, int64_t plane,
                              const WideRowsSegments *segs, const float *bias, bool first,
                              bool last, bool relu);
// The tiles with vdpbf16ps, a and b holding k-pairs of bf16 in each 32-bit
// element (conv2d_wide_rows_bf16_avx512bf16.cpp; a CPU with AVX512_BF16).
WideRowsTile wide_rows_bf16_tile(int rows, int vectors);
// Rows o in [first, first + count) of the paired weights, at rows + (o -
// first) row_stride: row[u khw + t] = the bf16 bits of W[o][2u][t] | W[o][2u +
// 1][t] << 16 (0 past c) for the c x khw weights of each of k output channels
// (OIHW); turned: of W'[o][ci][t] = W[ci][o][khw - 1 - t] (W with c output and
// k input channels), backward data's.
void wide_rows_bf16_pair_weights(const uint16_t *w, int64_t k, int64_t c, int64_t khw, bool turned,
                                 int64_t first, int64_t count, int64_t row_stride, uint32_t *rows);
// The tiles with vpdpbusd, a holding s8 k-quads and b u8 k-quads in each
// 32-bit element, the sums s32 bits (conv2d_wide_rows_int8_avx512vnni.cpp; a
// CPU with AVX512_VNNI).
WideRowsTile wide_rows_int8_tile(int rows, int vectors);
// `count` output channels' c x khw s8 weights `w` (OIHW) as k-quads: output
// channel o's row at rows + o row_stride, row[u khw + t] holding W[o][4u +
// i][t] in byte i (0 past c), and the sum of its weights at sums[o].
void wide_rows_int8_quad_weights(const int8_t *w, int64_t count, int64_t c, int64_t khw,
                                 int64_t row_stride, uint32_t *rows, int32_t *sums);
// One row of the quad planes: out[jq], jq < width, holds in byte i the
// element at column x0 + stride jq (stride 1 or 2) of the row of u8 or s8 at
// channels[i] (w wide; null: past c), the zero point's byte where that lies
// outside [0, w); shift: s8, each byte shifted by 128 into u8. ahead (not 0):
// prefetches the same columns `ahead` bytes past each row, the rows a later
// call reads.
void wide_rows_int8_quad_row(const uint8_t *const channels[4], int64_t w, int64_t x0,
                             int64_t stride, int64_t width, uint8_t zero_point, bool shift,
                             int64_t ahead, uint32_t *out);

// The rule that picks the wide-row kernel over the GEMM lowering (which packs
// every im2col element into a panel, a quarter of res2a's time), for the
// NCHW forward on the AVX-512 tier:
// - where the channel-lane kernel does not take them
//   (conv2d_channel_lanes_applies, checked first): f32; int8 (u8 or s8 src,
//   forward) in k-quads on vpdpbusd where the CPU has AVX512_VNNI (against
//   the integer GEMM on im2col^T panels: see docs/conv_pool_speed.md); f16
//   (no f16 arithmetic on this tier: the GEMM widens it too); bf16, widened
//   where the CPU's vdpbf16ps does not outpace its FMAs
//   (bf16_dot_outpaces_fma: Intel's runs at half their rate, so widened to
//   f32 the multiply-adds run at the FMAs' rate, with bf16 x bf16 products
//   exact in f32, sums in f32), else in k-pairs on vdpbf16ps (AMD: against
//   the GEMM's vdpbf16ps kernel on packed panels, see docs/conv_pool_speed.md);
// - stride 1 or 2 along both axes (2: the phase planes; ResNet-50's res3a, res4a, res5a,
//   which packed im2col panels), dilation 1, one group, a kernel larger than
//   1x1 (1x1 stride 1 needs no im2col; 1x1 stride 2 would read one phase of
//   four). int8 1x1 at stride 1 ran here too where there were at least as
//   many output channels as input ones, until the integer GEMM packed src
//   as its A four panels at a time and stored its NCHW dst in aligned lines:
//   then the GEMM ran ResNet-50's expanding and square 1x1 layers 1.09-1.64x
//   this kernel (batch 1, 1 thread), 1.10-1.52x on 2 threads and 1.20-2.16x
//   at batch 32 (dlk-perf conv, medians of 3, AMD EPYC Zen 5, family 26;
//   docs/conv_pool_speed.md, ninth sitting);
// - padding not negative (backward data's turned convolution has
//   padding kh - 1 - pad_h, negative where the padding is wider than the
//   kernel's reach; it runs at stride 1 only);
// - at least 16 output channels (a tile holds 8, two tiles share each B load
//   from L1), or 4 in a group of a grouped convolution run as a convolution
//   of its own (`of_group`; conv2d_group_views.hpp), where the alternatives
//   reuse B less still: the GEMM per group reuses an im2col panel for kg
//   output channels, the few-channel kernel keeps a group's 8 in half a tile
//   (ResNeXt-50 conv2, 32 groups of 4, and conv3, of 8, ran 1.9-3.7x those
//   at batch 1 on 1 thread, f32, bf16 and int8; docs/conv_pool_speed.md,
//   thirty-fourth sitting); and at least 4 input channels (int8: 3, a quad three-quarters
//   full: ResNet-50's conv1 ran 1.60x the integer GEMM on im2col^T panels
//   at batch 1 on 1 and 2 threads, 1.28x at batch 32, dlk-perf conv, Zen 5);
// - padded width (of a phase plane at stride 2) / output width at most 1.2:
//   the junk columns are computed (ResNet-50 res2a 58/56, res3b 30/28, res4b
//   16/14, all VGG-16 3x3, res3a 29/28, res4a 15/14, res5a 8/7; res5b's 9/7
//   would waste 29 % and keeps the GEMM, with its pixels as rows, int8 its
//   output channels as rows). int8 ran here at up to 1.3 and at stride 2
//   without the floor of 3 tiles below until the integer GEMM took the
//   weights in place as its A (s8 A x u8 B): then it ran res5b 3x3 (9/7) and
//   res5a 3x3 (7 x 8, 2 tiles) 1.43x and 1.56x this kernel at batch 1 on 1
//   thread, 1.28x and 1.38x on 2 (this kernel quads all 2.4 MB of weights per
//   call, a quarter of its time there; dlk-perf conv, AMD EPYC Zen 5;
//   docs/conv_pool_speed.md, fifteenth sitting);
// - its scratch within the bound.
// Backward data runs as the convolution of diff_dst with the weights turned
// around (conv2d_backward_data.cpp): `turned` asks for that convolution's
// arguments, whose weights are then turned in scratch (W'[ci][kk][r][s] =
// W[kk][ci][kh-1-r][kw-1-s]) once per call; padded width at most 1.1 x the
// width there, since the GEMM + col2im route it replaces computes no junk
// columns and its turned weights cost a pass per call: against that route
// (dlk-perf conv, ratios to oneDNN-any in the same runs, medians of 3, 1 / 2
// threads, batch 1, Intel Xeon model 207, load 27-37) res2a 0.53 -> 0.85 /
// 0.64 -> 0.82, res3b 0.68 -> 0.72 / 0.66 -> 0.74, VGG-16 conv3_2 0.74 ->
// 0.82 / 0.73 -> 0.84, but 14 x 14 images (16 / 14 wide) lost: res4b 0.64 ->
// 0.45 / 0.64 -> 0.56, conv5_x 0.68 -> 0.47 / 0.68 -> 0.47.
inline bool conv2d_wide_rows_applies(const core::Conv2dArgs &a, int threads, bool turned = false,
                                     bool of_group = false) {
  const dlk_conv2d_desc &d = a.desc;
  const bool int8 = d.src_type == DLK_DTYPE_U8 || d.src_type == DLK_DTYPE_S8;
  const bool dtype = d.src_type == DLK_DTYPE_F32 || d.src_type == DLK_DTYPE_F16 ||
                     d.src_type == DLK_DTYPE_BF16 ||
                     (int8 && !turned && core::cpu_features().avx512_vnni);
  if (!dtype || d.format != DLK_FORMAT_NCHW || d.groups != 1 || d.stride_h != d.stride_w ||
      d.stride_h < 1 || d.stride_h > (turned ? 1 : 2) || d.dilation_h != 1 ||
      d.dilation_w != 1 || d.k < (of_group ? 4 : 16) || d.c < (int8 ? 3 : 4) || d.pad_h < 0 ||
      d.pad_w < 0)
    return false;
  if (d.kh * d.kw < 2) return false;
  // The phase plane's width, ceil(((ow - 1) stride + kw) / stride): w + 2
  // pad_w at stride 1, computed from the output size without overflow.
  const int64_t wp = a.ow - 1 + (d.kw + d.stride_w - 1) / d.stride_w;
  if (wp * 5 > a.ow * 6 || (turned && wp * 10 > a.ow * 11)) return false;
  // Stride 2: more than 3 tiles of 48 wide columns an image (res5a's 7 x 8
  // fill 2, the second a sixth full, and ran 0.84x the GEMM with its pixels
  // as rows).
  if (d.stride_h == 2 && a.oh * wp <= 3 * 48) return false;
  const WideRowsPlan plan(a, threads, turned);
  return plan.bytes <= kScratchBound && plan.channel_block * plan.plane < (int64_t{1} << 30);
}
// Its name in dlk_context_last_op (at most 47 characters there): f16 and bf16
// say whether they ran widened; `turned`: backward data.
inline const char *conv2d_wide_rows_name(dlk_dtype type, bool turned) {
  if (type == DLK_DTYPE_U8 || type == DLK_DTYPE_S8) return "avx512:conv2d_wide_rows_int8";
  const bool pairs = type == DLK_DTYPE_BF16 && bf16_dot_outpaces_fma(core::cpu_features());
  if (turned)
    return pairs                    ? "turned:avx512:wide_rows_bf16"
           : type == DLK_DTYPE_BF16 ? "turned:avx512:wide_rows_bf16_as_f32"
           : type == DLK_DTYPE_F16  ? "turned:avx512:wide_rows_f16_as_f32"
                                    : "turned:avx512:wide_rows_f32";
  return pairs                    ? "avx512:conv2d_wide_rows_bf16"
         : type == DLK_DTYPE_BF16 ? "avx512:conv2d_wide_rows_bf16_as_f32"
         : type == DLK_DTYPE_F16  ? "avx512:conv2d_wide_rows_f16_as_f32"
                                  : "avx512:conv2d_wide_rows_f32";
}

// One image's padded planes (plan.image_floats floats) kept by the caller
// for convolutions of one WideRowsImageShape: the first call pads src into
// them (`padded` false), the others read them as they are.
struct WideRowsImage {
  float *planes = nullptr;
  bool padded = false;
};

// dst = conv(src, weights) + bias, ReLU where asked (the weights turned
// around where plan.turned); `scratch` holds plan.bytes; with `image` (one
// image on one thread) its planes instead of the scratch's.
void conv2d_wide_rows_avx512(const core::Conv2dArgs &args, int threads, const WideRowsPlan &plan,
                             void *scratch, WideRowsImage image = {});

}  // namespace dlk::cpu::kernels
