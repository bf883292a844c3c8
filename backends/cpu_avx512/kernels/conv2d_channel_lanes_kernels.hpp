// Direct convolution with the output channels in the lanes (f32, bf16 and int8
// NCHW and NHWC forward, f32 and bf16 NCHW and NHWC backward data at stride
// 1 and 2;
// conv2d_channel_lanes_avx512.cpp, the bf16 and int8 tiles in
// conv2d_channel_lanes_bf16_avx512bf16.cpp and
// conv2d_channel_lanes_int8_avx512vnni.cpp): a tile of up to 14 consecutive
// output pixels of a row x 32 output channels keeps its 28
// sums in registers over the c x kh x kw taps (those of the kernel rows that
// reach the image: the plan's skip_rows); per tap two aligned loads of
// the tap's weights (packed once per call, or once for many calls through
// dlk_conv2d_weights_create; 32 output channels a tap) and one
// broadcast of each pixel's input value from a zero-padded copy of the image,
// one FMA per pixel and vector. Then the sums are stored with bias and ReLU:
// NCHW turned channel-major by 16 x 16 transposes into dst's planes, NHWC a
// vector of 16 channels of a pixel as it is. bf16 (where vdpbf16ps outpaces
// the FMAs) keeps its bits in k-pairs: each 32-bit element of the padded image
// holds channels 2u and 2u + 1 of a pixel (NCHW: paired as the image is
// padded; NHWC with c even: as src lies, odd: copied a pixel at a time, a zero
// after its last), each of the packed weights the same two channels of a tap
// (NCHW: paired first by wide_rows_bf16_pair_weights; NHWC: as OHWI lies, or
// paired first where c is odd), one vdpbf16ps per broadcast pair and vector; the f32
// sums of a block's output row go to a stage per thread and are rounded once
// into dst (round_to_bf16_avx512). ResNet-50 res2a-res4b 3x3 and conv1 ran
// 1.07-1.40x the wide-row kernel and the GEMM at batch 1 on 1 thread. int8
// (u8 or s8 src, where the CPU has AVX512_VNNI) keeps the wide-row kernel's
// k-quads (conv2d_direct_kernels.hpp): u8 image quads (s8 shifted by 128,
// padding the zero point), s8 weight quads, one vpdpbusd per broadcast quad
// and vector, s32 sums starting at -(zero point x the channel's weight sum),
// bit-exact; s32 dst from the tile, f32/s8/u8 dst through the stage and the
// integer GEMM's requantizing store. Against the wide-row kernel
// (its vectors 16 columns of an output row, conv2d_direct_kernels.hpp) it
// computes no junk columns past ow, needs no phase planes at stride 2 (a
// broadcast reads any element) and no unaligned loads of B: ResNet-50's res2a-
// res4b 3x3 and conv1 forward ran at 87-93 % of the FMA peak at batch 1 on 1
// thread, 1.05-1.39x the wide-row kernel and the GEMM (dlk-perf conv, AMD EPYC
// Zen 5; docs/conv_pool_speed.md, tenth sitting). Its cost is the weights'
// packing per call, k x c x kh x kw floats, paid back by the pixels that reuse
// each weight, and the tile's transposes and stores, paid back by its taps
// (the rule below).
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/cpu_avx512/cpu_peak.hpp"
#include "backends/cpu_avx512/scratch.hpp"
#include "core/backend.hpp"

namespace dlk::cpu::kernels {

// A tile's pixels and vectors of 16 output channels: 14 x 2 sums, 2 vectors of
// weights and a broadcast in registers.
constexpr int kChannelLanesPixels = 14;
constexpr int kChannelLanesVectors = 2;

// A tile (conv2d_channel_lanes_tile_avx512.inc): `pixels` output pixels x
// `vectors` of 16 output channels over `taps` taps; pixel p of tap t reads
// src + off[t] + p step, tap t's weights are w + t vectors 16 (32-bit
// elements: f32, or bf16 k-pairs); the f32 sums, bias added and ReLU where
// asked, go to channel i of pixel p at dst + i dst_stride + p (NCHW) or dst
// + p dst_stride + i (NHWC), for i < channels.
using ChannelLanesTile = void (*)(const float *src, int64_t step, const int32_t *off, int64_t taps,
                                  const float *w, const float *bias, bool relu, float *dst,
                                  int64_t dst_stride, int channels);
// The tiles with vdpbf16ps (conv2d_channel_lanes_bf16_avx512bf16.cpp; a CPU
// with AVX512_BF16): NHWC, or NCHW at input column stride sw (1 or 2).
ChannelLanesTile channel_lanes_bf16_tile(int pixels, int vectors, bool nhwc, int64_t sw);
// The tiles with vpdpbusd (conv2d_channel_lanes_int8_avx512vnni.cpp; a CPU
// with AVX512_VNNI), s32 sums starting from `bias` (int8's starting sums).
ChannelLanesTile channel_lanes_int8_tile(int pixels, int vectors, bool nhwc, int64_t sw);

// The layout of the kernel's scratch: the taps' offsets into the padded
// image, the weights packed 32 output channels a tap, and a zero-padded image
// per thread, which only that thread writes and reads (a core waits for the
// lines another core wrote: all threads padding one image that each then read
// lost int8 res2a a quarter at batch 1 on 2 threads). Where there are images
// enough, each thread takes whole ones (padding one while the other thread
// computes: at batch 32 all threads padding each image in turn, then
// computing it, lost ResNet-50's res2a a tenth); else, where the output rows
// split over the threads within a tenth and the padded image outweighs the
// packed weights, each thread pads the rows its band of output rows reads
// and computes every block of the band; else each pads the whole image and
// computes its share of the blocks (a band would read all the weights, half
// of them packed by the other core in the call: f32 res4a and res4b, weights
// 3 and 9 times the image, lost a fifth). Batch 1 on 2 threads, against
// the one image all threads padded and shared: ResNet-50 3x3 forward with
// its weights packed before, f32 0.64-0.85x -> 0.84-0.92x oneDNN-any, bf16
// 0.63-0.80x -> 0.78-0.87x, int8 0.60-0.87x -> 0.69-0.81x (dlk-perf conv,
// Zen 5; docs/conv_pool_speed.md, twenty-second sitting).
//
// turned: backward data's turned convolution (args as the forward of diff_dst
// with the weights W of the convolution it is the transpose of, turned around
// in the packing). At stride 2 x 2 (phased) that is no convolution: diff_src's
// pixels fall into 4 phases by the parity of their row and column, each
// phase's pixels the stride-1 convolution of diff_dst with those taps of W
// whose row and column have the phase's parity (a 3x3 kernel's 2 x 2, 2 x 1,
// 1 x 2 and 1 x 1), the phases' taps and weights one after another. A row of
// diff_src is one row phase; its two column phases go to a stage per thread
// (NCHW, bf16) and are interleaved into it, or straight to its even and odd
// pixels (f32 NHWC).
struct ChannelLanesPlan {
  ChannelLanesPlan(const core::Conv2dArgs &args, int threads, bool turned = false);
  bool turned = false, phased = false;
  bool pairs = false;  // bf16 k-pairs for vdpbf16ps
  // NHWC with c not a whole number of pairs (bf16) or quads (int8): src's
  // pixels copied one at a time, the weights grouped first.
  bool ragged = false;
  bool quads = false;  // int8 k-quads for vpdpbusd; neither: f32
  // An output row runs only the taps of the kernel rows that reach the image,
  // the taps ordered by kernel row first (NCHW (r, u, s); NHWC's (r, s, u)
  // are so anyway). oneDNN's blocked kernels skip the padding's rows and
  // columns: over a 7 x 7 image a 3x3 kernel with padding 1 has 19 of its 21
  // row taps in the image, 361 of 441 taps (0.82: oneDNN-any ran res5b at
  // 104-120 % of the peak that dlk's tiles measure), 14 x 14 40 of 42. The
  // rows alone: ResNet-50 res4b/res5b 3x3 at batch 32 on 2 threads, forward
  // and backward data, 0.75-1.00x -> 0.85-1.06x oneDNN-any (Zen 4). Not
  // phased (a phase's rows are few), nor int8 but with a zero point of 0 (u8;
  // s8's -128): elsewhere its padding holds the zero point, whose taps the
  // starting sums count.
  bool skip_rows = false;
  int64_t units = 0;   // input channels, or their pairs or quads
  bool images_per_thread = false;
  // bands > 1: output rows band_rows a band (the last may hold fewer), a
  // thread each; else copies threads pad the whole image each.
  int64_t bands = 1, band_rows = 0, copies = 1;
  int64_t buffers = 1;
  // The padded plane: the rows and columns any tap (of a band) reaches, hp x
  // wp; an input pixel's floats in the padded image (NCHW 1, NHWC c or a
  // little more).
  int64_t hp = 0, wp = 0, plane = 0, pixel_floats = 1;
  // The padded image's rows above and columns left of the image's first.
  int64_t pad_top = 0, pad_left = 0;
  int64_t taps = 0;    // units x kh x kw
  // phased: the convolution's padding (W's), the taps of the phases' rows
  // and columns by parity, and each phase's first tap (phase 2 x row parity +
  // column parity).
  int64_t pad_h = 0, pad_w = 0, phase_kh[2] = {}, phase_kw[2] = {}, phase_first[4] = {};
  int64_t blocks = 0;  // of 32 output channels (the last may hold fewer)
  // paired: NCHW's bf16 weights paired, int8's quadded, before they are
  // packed; starts: int8's starting sums per output channel; stages: the sums
  // of a block's output row, one per thread, that bf16 is rounded from and
  // int8 but to s32 is requantized from.
  int64_t offsets_count = 0, weight_floats = 0, paired_floats = 0, image_floats = 0;
  int64_t starts_count = 0, stages = 0, stage_floats = 0;
  // bytes: the scratch; weights_bytes of it the packed, paired and starts,
  // which a call with the weights packed before (ChannelLanesWeights) needs not.
  size_t bytes = 0, weights_bytes = 0;
};

// The weights packed before the call (conv2d_channel_lanes_pack_weights into
// weight_floats floats and starts_count starting sums of a plan of the same
// desc but for n), for calls that reuse them.
struct ChannelLanesWeights {
  const float *packed;
  const int32_t *starts;
};

// Output pixels per weight below which packing the weights per call costs
// more than the tile's speed wins back (res5 3x3 at batch 1, 49 pixels, ran
// 0.96-0.97x the GEMM; res4, 196, 1.15-1.23x the wide-row kernel), and taps
// below which the tile's transposes and stores do (VGG-16 conv1_1, 27 taps,
// 0.77x the wide-row kernel; conv1, 147, 1.37x): dlk-perf conv, batch 1,
// AMD EPYC Zen 5.
constexpr int64_t kChannelLanesMinPixels = 128;
// int8 NCHW into s32 counts its taps in channels, not quads: a quad's
// vpdpbusd does four channels' multiply-adds for the same transposes and
// stores (ResNet-50 conv1's 3 channels, 49 quads of taps, 0.71-0.73x ->
// 0.77-0.82x oneDNN-any against the wide-row kernel; 28 channels 3x3, 63
// quads, 0.73-0.74x -> 0.80-0.81x; LeNet-5 conv2 at batch 64, 50 quads,
// 0.29-0.44x -> 1.13-1.18x against the GEMM: batch 1 but LeNet-5, 1 thread;
// 2 threads and batch 32 alike; Zen 5). Into u8, s8 or f32 the sums are
// staged and stored a row at a time, and 28 channels ran 0.56-0.61x ->
// 0.50-0.53x: quads there.
constexpr int64_t kChannelLanesMinTaps = 64;
// f32 and bf16 NHWC turn no sums (a vector of a pixel's channels is stored,
// or staged and rounded, as it is): VGG-16 conv1_1 (27 taps, 18 in pairs) ran
// 2.05x (f32) and 2.23x (bf16) the GEMM on its im2col panels (0.33 -> 0.67x
// and 0.21 -> 0.46x oneDNN-any; batch 1, 1 thread, Zen 5).
constexpr int64_t kChannelLanesMinTapsNhwc = 16;
// Backward data's phases (turned at stride 2) count a phase's taps, a quarter
// of the kernel's, and each output row's tile runs every phase's taps of its
// row parity: from 16, as f32 NHWC. ResNeXt-50 conv4_1's groups of 16 (36
// taps a phase, f32; 18 pairs, bf16) ran 1.7x and 2.2x GEMM + col2im
// (0.28 -> 0.47x and 0.15 -> 0.33x oneDNN-any, NCHW, batch 1, 1 thread, Zen 4).
constexpr int64_t kChannelLanesMinTapsPhased = 16;
// int8 NHWC requantized into u8, s8 or f32 (staged and stored by the integer
// GEMM's vector store, as the GEMM's own tiles are): from 8 quads. VGG-16
// conv1_1 (9 quads) u8 dst ran 1.62-2.23x the integer GEMM, conv1 (49)
// 0.88-1.18x (batch 1 and 32, 1 and 2 threads, Zen 5); s32 dst, stored from
// the tile, ran conv1_1 0.80-1.11x, and takes the kernel from 32 quads:
// LeNet-5 conv2 (50) 1.60-1.76x, 3x3 over 28 channels (63) 1.23-1.50x,
// ResNet-50 conv1 (49) 1.02-1.06x.
constexpr int64_t kChannelLanesMinQuadsNhwcRequantized = 8;
constexpr int64_t kChannelLanesMinQuadsNhwc = 32;
// And where a block's packed weights (32 x taps floats) pass 512 KiB, half of
// the L2 they are streamed from once per tile: 512 pixels. VGG-16 conv5_x
// (512 channels, 3x3, 14 x 14: 576 KiB a block, 196 pixels) ran 1.00x the
// wide-row kernel forward and 0.91x GEMM + col2im backward; ResNet-50 res5
// 3x3 at batch 32 (the same blocks, 1568 pixels) 1.30-1.43x the GEMM, VGG-16
// conv4_2 (784) 1.14x and 1.29x.
constexpr int64_t kChannelLanesLargeBlockTaps = 4096;
constexpr int64_t kChannelLanesLargeBlockMinPixels = 512;
// With the weights packed before the call (dlk_conv2d_weights_create) neither
// floor above has a packing to pay back: ResNet-50's res5 3x3 at batch 1 (49
// and 196 pixels; 576 KiB blocks) against the GEMM, x oneDNN-any in the same
// runs, 1 thread: f32 0.79-0.86x -> 0.89-0.90x, bf16 0.73-0.78x ->
// 0.85-0.86x, int8 0.71-0.77x -> 0.85-0.88x; 2 threads 0.52-0.66x ->
// 0.62-0.80x; NHWC f32 and bf16 0.65-0.85x -> 0.80-0.90x; VGG-16 conv5_x
// (196 pixels) 0.48-0.81x -> 0.89-0.92x (dlk-perf conv, Zen 5). Fewer
// pixels than res5b's 49 are not measured: 48.
constexpr int64_t kChannelLanesPrepackedMinPixels = 48;

// The rule that picks this kernel over the wide-row kernel and the GEMM
// lowering for the forward pass on the AVX-512 tier, and for backward data's
// turned convolution (conv2d_backward_data.cpp: f32 and bf16; at stride 1, or
// phased at stride 2 x 2 without dilation where every phase has taps, the
// floors on a phase's taps and pixels, a quarter of all on average: ResNet-50
// res5a's 196 pixels of diff_src ran 0.37-0.82x GEMM + col2im):
// f32, bf16 or int8 as below, NCHW or NHWC, one group, a kernel larger than
// 1x1, stride_w 1 or 2 (the tile's broadcasts step by it; any stride_h and
// dilation: they are the taps' offsets), padding not negative, at least 16
// output channels, n x oh x ow and the taps (in pairs or quads; int8 NCHW into
// s32 in channels) at least the floors above (f32, bf16 and int8 NHWC's own;
// with the weights `prepacked`
// the pixels' floor is kChannelLanesPrepackedMinPixels alone), the padded
// image addressable by 32-bit offsets and the scratch within its bound.
inline bool conv2d_channel_lanes_applies(const core::Conv2dArgs &a, int threads,
                                         bool turned = false, bool prepacked = false) {
  const dlk_conv2d_desc &d = a.desc;
  // bf16 in k-pairs where vdpbf16ps outpaces the FMAs (AMD); int8
  // (u8 or s8 src) in k-quads where the CPU has AVX512_VNNI. (NHWC from 256
  // channels kept the integer GEMM on its im2col^T panels until it was
  // measured on Zen 4, where this kernel ran ResNet-50 res4a-res5b and VGG-16
  // conv3_2-conv5_x 1.02-1.16x the GEMM at batch 1 on 1 and 2 threads, 1.08-1.68x at
  // batch 32 on 2, and res5's 1.26-1.43x with packed weights, which had no
  // kernel of their own there; on Zen 5, before packed weights, ResNet-50
  // res4a/res4b ran 0.96-0.97x, VGG-16 conv4_2/conv5_x 0.91-0.93x.)
  const bool nchw = d.format == DLK_FORMAT_NCHW;
  const bool bf16 = d.src_type == DLK_DTYPE_BF16 && bf16_dot_outpaces_fma(core::cpu_features());
  const bool int8 = (d.src_type == DLK_DTYPE_U8 || d.src_type == DLK_DTYPE_S8) &&
                    core::cpu_features().avx512_vnni;
  if ((d.src_type != DLK_DTYPE_F32 && !bf16 && !int8) || d.groups != 1 ||
      d.kh * d.kw < 2 || d.stride_w < 1 || d.stride_w > 2 || d.pad_h < 0 || d.pad_w < 0 ||
      d.k < 16)
    return false;
  const bool phased = turned && d.stride_h == 2 && d.stride_w == 2;
  if (turned && !phased && (d.stride_h != 1 || d.stride_w != 1)) return false;
  if (phased && (d.dilation_h != 1 || d.dilation_w != 1 || d.kh < 2 || d.kw < 2)) return false;
  const int64_t units = int8 ? (d.c + 3) / 4 : bf16 ? (d.c + 1) / 2 : d.c;
  // (phased: a phase's taps and pixels, a quarter each on average.)
  const int64_t quarter = phased ? 4 : 1;
  const int64_t pixels = d.n * a.oh * a.ow / quarter, taps = units * d.kh * d.kw / quarter;
  const bool float_nhwc = !nchw && (d.src_type == DLK_DTYPE_F32 || bf16);
  const int64_t min_taps = float_nhwc       ? kChannelLanesMinTapsNhwc
                           : phased         ? kChannelLanesMinTapsPhased
                           : nchw || !int8  ? kChannelLanesMinTaps
                           : d.dst_type != DLK_DTYPE_S32 ? kChannelLanesMinQuadsNhwcRequantized
                                                         : kChannelLanesMinQuadsNhwc;
  const bool few_pixels =
      prepacked ? pixels < kChannelLanesPrepackedMinPixels
                : pixels < kChannelLanesMinPixels || (taps > kChannelLanesLargeBlockTaps &&
                                                      pixels < kChannelLanesLargeBlockMinPixels);
  const bool taps_in_channels = nchw && int8 && d.dst_type == DLK_DTYPE_S32;
  if (few_pixels || (taps_in_channels ? d.c * d.kh * d.kw : taps) < min_taps) return false;
  const ChannelLanesPlan plan(a, threads, turned);
  return plan.bytes <= kScratchBound && plan.image_floats < (int64_t{1} << 31);
}

// Its name in dlk_context_last_op.
inline const char *conv2d_channel_lanes_name(const dlk_conv2d_desc &d) {
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  if (d.src_type == DLK_DTYPE_BF16)
    return nhwc ? "avx512:conv2d_channel_lanes_bf16_nhwc" : "avx512:conv2d_channel_lanes_bf16";
  if (d.src_type == DLK_DTYPE_U8 || d.src_type == DLK_DTYPE_S8)
    return nhwc ? "avx512:conv2d_channel_lanes_int8_nhwc" : "avx512:conv2d_channel_lanes_int8";
  return nhwc ? "avx512:conv2d_channel_lanes_f32_nhwc" : "avx512:conv2d_channel_lanes_f32";
}

// The weights of args packed for the plan: `packed` plan.weight_floats, `starts`
// plan.starts_count (int8's starting sums), `paired` plan.paired_floats (where
// they are paired or quadded first).
void conv2d_channel_lanes_pack_weights(const core::Conv2dArgs &args, int threads,
                                       const ChannelLanesPlan &plan, float *packed,
                                       int32_t *starts, uint32_t *paired);

// dst = conv(src, weights) + bias, ReLU where asked, on up to `threads`
// threads; `scratch` holds plan.bytes, or plan.bytes - plan.weights_bytes with
// the weights `prepacked` (plan.turned: see the plan).
void conv2d_channel_lanes_avx512(const core::Conv2dArgs &args, int threads,
                                 const ChannelLanesPlan &plan, void *scratch,
                                 const ChannelLanesWeights *prepacked = nullptr);

}  // namespace dlk::cpu::kernels
