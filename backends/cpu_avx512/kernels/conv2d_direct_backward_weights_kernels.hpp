// Direct convolution backward weights for few output channels (at most 16),
// f32 NCHW, one group: the 16 lanes of a vector are the output channels, as in
// the forward's direct kernel (conv2d_direct_kernels.hpp). diff_dst is turned
// pixel-major per image (a vector of the channels per pixel), and each tap's
// gradient, a vector over the channels, sums input value (broadcast) x that
// vector over the pixels in a register. The GEMM lowering of such layers
// (LeNet-5's conv1, 6 channels, and conv2, 16 channels of 6 x 5 x 5 taps) packs
// an im2col^T element for every kg multiply-adds, and its C has kg rows of a
// 14-row tile: 2-8 GFLOP/s on Intel Xeon model 207, 1 thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "backends/cpu_avx512/kernels/conv2d_direct_kernels.hpp"
#include "backends/cpu_avx512/scratch.hpp"
#include "core/backend.hpp"

namespace dlk::cpu::kernels {

// The layout of the kernel's scratch: per thread the taps' sums (taps x 16 f32
// and 16 for the bias), one image's diff_dst pixel-major (pixels x 16) and,
// where there is padding, one zero-padded image (c x hp x wp).
struct DirectBackwardWeightsPlan {
  DirectBackwardWeightsPlan(const core::Conv2dArgs &args, int threads);
  int team = 1;  // threads, each summing its share of the images
  int64_t hp = 0, wp = 0, padded_floats = 0;
  int64_t sums_floats = 0, pixel_major_floats = 0;
  size_t thread_bytes = 0, bytes = 0;
};

// Pixels of one image whose pixel-major diff_dst a thread holds (1 MiB).
constexpr int64_t kMaxDirectBackwardPixels = int64_t{1} << 14;

// The rule (f32 NCHW on the AVX-512 tier): one group, a kernel larger than
// 1x1, 4 to 16 output channels (fewer leave most lanes idle), at most
// kMaxDirectTaps taps, at most kMaxDirectBackwardPixels output pixels, a
// padded image of at most kMaxDirectPaddedFloats; any stride and dilation.
inline bool conv2d_direct_backward_weights_applies(const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &d = a.desc;
  if (d.src_type != DLK_DTYPE_F32 || d.format != DLK_FORMAT_NCHW || d.groups != 1 ||
      d.kh * d.kw <= 1 || d.k < 4 || d.k > 16 || d.c * d.kh * d.kw > kMaxDirectTaps ||
      a.oh * a.ow > kMaxDirectBackwardPixels)
    return false;
  if (d.pad_h == 0 && d.pad_w == 0) return true;
  const int64_t limit = kMaxDirectPaddedFloats;  // (padding is bounded only by the output)
  return d.pad_h < limit && d.pad_w < limit && d.h < limit && d.w < limit &&
         d.c * (d.h + 2 * d.pad_h) * (d.w + 2 * d.pad_w) <= limit;
}

// diff_weights = sum over images and pixels of src x diff_dst, diff_bias (if
// not null) the sum of diff_dst; images on plan.team threads; `scratch` holds
// plan.bytes.
void conv2d_direct_backward_weights_avx512(const core::Conv2dArgs &args,
                                           const DirectBackwardWeightsPlan &plan, void *scratch);

// Backward weights for many output channels (f32, f16 and bf16 NCHW widened
// to f32 as they are read, or bf16 in pixel pairs on vdpbf16ps where it
// outpaces the FMAs; sums in f32 rounded once; one group, more than 16
// output channels, kernels 3, 5 or 7 wide without dilation along the rows;
// conv2d_channel_blocks_backward_weights_avx512.cpp): the output channels run
// in blocks of 32, two vectors of lanes, and each block's gradient sums input
// value (broadcast) x the block's pixel-major diff_dst over the pixels, a chunk
// of kernel rows (kh x c of them, kw taps each) at a time in registers: per
// pixel two loads of diff_dst and, per tap, a broadcast and two multiply-adds.
// Nothing of im2col is packed (the GEMM lowering's Im2colTransposePanelPacker
// writes an element per kg multiply-adds, and its C is the whole kg x taps).
// Threads take shares of the batch (each its own sums of every block, added up
// after) or, at batch 1, blocks of channels (and, with fewer blocks than
// threads, parts of the kernel rows: each writes its own rows of diff_weights,
// no sums to add). NHWC (f32, f16, bf16): src turned channel-major as it is
// padded, diff_dst read pixel-major where it lies; diff_weights still OIHW.
struct ChannelBlocksBackwardWeightsPlan {
  ChannelBlocksBackwardWeightsPlan(const core::Conv2dArgs &args, int threads);
  int64_t blocks = 0, parts = 0, units = 0;  // units: blocks x parts of the kernel rows
  int team = 1;
  // Threads take shares of the images, each summing all units (sums of every
  // unit per thread, added up after), not shares of the units.
  bool over_images = false;
  // bf16 in pixel pairs (channel_blocks_bf16_pair_rows), not widened: the
  // padded image, the staged band and the pair-major diff_dst hold bf16 bits.
  bool pairs = false;
  // NHWC: src copied into the padded image channel-major; diff_dst, pixel-major
  // already, read where it lies (f32 with k a multiple of 16: dst_in_place, no
  // pixel-major band) or copied a pixel's kn channels at a time (pairs: two
  // pixels' interleaved).
  bool nhwc = false, dst_in_place = false;
  // A padded image per thread (none unpadded NCHW f32). pairs: always, rows of
  // wp bf16 with two zero columns past the padding, within which the dummy
  // pixel of an odd-width output row reads (at stride 2 each row its even
  // columns, then its odd ones).
  int64_t hp = 0, wp = 0, padded_floats = 0;
  int64_t block_rows = 0;  // output rows whose pixel-major diff_dst a thread holds at a time
  // staged: NCHW, a band of f16/bf16 diff_dst in f32 (pairs: its bf16, rows
  // made even with a zero); NHWC f16/bf16, one src row turned channel-major.
  int64_t pixel_major_floats = 0, staged_floats = 0;
  int64_t unit_sums_floats = 0;  // a unit's sums (its taps x 32 and 32 for the bias)
  int64_t group = 1;  // units a thread sums at a time, each image padded once for them
  size_t thread_bytes = 0, bytes = 0;
};

// The rule that picks it over the GEMM lowering: NCHW on the AVX-512 tier, f32,
// f16 (no f16 arithmetic on this tier: the GEMM widens it too) or bf16 (where
// the CPU's vdpbf16ps does not outpace its FMAs, bf16_dot_outpaces_fma, as the
// wide-row forward, widened: bf16 x bf16 products are exact in f32; where it
// does, in pixel pairs at stride 1 or 2 along the rows only, where the two
// pixels of a pair read adjacent input values), one group, more than 16 output
// channels (the kernel above takes 4 to 16), or 16 in a group of a grouped
// convolution run as one (`of_group`, conv2d_backward_weights.cpp: bf16 and
// f16 have no kernel above), kw of 3, 5 or 7 with dilation_w 1
// (the taps of a kernel row are one pointer's neighbours), any stride_h,
// padding and dilation_h, at least kMinChannelBlockPixels output pixels in the
// batch (f32 and f16), its scratch within the bound.
//
// The pixels: against the GEMM lowering (dlk-perf conv --sets resnet50_3x3
// --passes bwd_weights, ratios to oneDNN-any in the same run, Intel Xeon model
// 207, quiet), at batch 1 (two alternated runs of each build, 1 / 2 threads,
// load 0.8) the layers of 196 pixels and more gained: res2a 0.67-0.75 ->
// 0.99-1.02 / 0.64-0.69 -> 1.06-1.12, res3a (stride 2) 0.62-0.67 -> 0.96-1.10
// / 0.70-0.95 -> 0.86-0.93, res3b 0.68-0.74 -> 0.71-0.87 / 0.79 -> 1.07-1.11,
// res4a 0.74-0.81 -> 0.81-0.90 / 0.85-0.92 -> 0.88-1.03, res4b 0.57-0.70 ->
// 0.87-0.91 / 0.68-0.76 -> 0.73-0.90; res5a and res5b (49 pixels, 4608 taps:
// the per-call costs, sums zeroed and turned into diff_weights, k x taps,
// weigh against k x taps x 49 multiply-adds) lost or stayed level (res5a
// 0.82-1.34 -> 0.64-0.78 / 0.82-0.90 -> 0.70; res5b 0.59-0.62 -> 0.57-0.67 /
// 0.66-0.69 -> 0.63-0.66) and keep the GEMM at batch 1. At batch 32 (2
// threads, one run each, load 1.5) every layer gained: res2a 0.73 -> 1.11,
// res3a 0.71 -> 1.11, res3b 0.80 -> 1.12, res4a 0.89 -> 1.03, res4b 0.75 ->
// 0.98, res5a 0.82 -> 0.85, res5b 0.65 -> 0.78. bf16 (widened) against the
// GEMM's vdpbf16ps kernel, which runs at half the FMAs' rate on Intel Xeon
// model 207: every layer gained, so bf16 takes no pixel limit (batch 1, 1 / 2
// threads, medians of 2 alternated runs, load 68-100 from the other sessions'
// niced builds): res2a-res4b 0.70-0.80 -> 1.35-1.69 / 0.65-1.19 -> 1.24-1.71,
// res5a 0.84-0.88 -> 1.14-1.19 / 0.67-1.01 -> 1.30-1.51, res5b 0.61-0.65 ->
// 1.01-1.08 / 0.57-0.60 -> 0.97-1.09; batch 32, 2 threads: 0.73-0.93 ->
// 1.39-1.88.
constexpr int64_t kMinChannelBlockPixels = 128;
bool conv2d_channel_blocks_backward_weights_applies(const core::Conv2dArgs &args, int threads,
                                                    bool of_group = false);

// diff_weights and diff_bias (if not null) as above; `scratch` holds
// plan.bytes. Its name in dlk_context_last_op: f16 and bf16 say that they ran
// widened; NHWC, and a grouped convolution's groups, say so (shorter stems:
// dlk_op_record keeps 47 characters).
enum class ChannelBlocksRoute { nchw, nhwc, groups };
inline std::string conv2d_channel_blocks_backward_weights_name(
    dlk_dtype type, bool pairs, ChannelBlocksRoute route = ChannelBlocksRoute::nchw) {
  return std::string(route == ChannelBlocksRoute::nhwc     ? "avx512:nhwc_channel_blocks_"
                     : route == ChannelBlocksRoute::groups ? "avx512:group_channel_blocks_"
                                                           : "avx512:channel_blocks_bwd_weights_") +
         (pairs                    ? "bf16"
          : type == DLK_DTYPE_BF16 ? "bf16_as_f32"
          : type == DLK_DTYPE_F16  ? "f16_as_f32"
                                   : "f32");
}
void conv2d_channel_blocks_backward_weights_avx512(const core::Conv2dArgs &args,
                                                   const ChannelBlocksBackwardWeightsPlan &plan,
                                                   void *scratch);

// Sums in registers: 28 of the 32, with diff_dst's V vectors and a broadcast.
constexpr int kChannelBlockMaxSums = 28;

// bf16 in pixel pairs (kernels/conv2d_channel_blocks_backward_weights_bf16_avx512bf16.cpp,
// only where the CPU has AVX512_BF16): sums[t][v x 16] (f32) += over `rows`
// output rows (row_step bf16 apart in image) of ow pixels in pairs, the two
// input values at image[offsets[t / kw] + 2q + the tap's column] . pair q's
// 32-bit lanes of pair_major (v vectors of 16 output channels, each lane that
// channel's gradient at the pair's two pixels, zero for an odd row's dummy),
// t < r x kw; r at most kChannelBlockMaxSums / (kw x v). The tap's column is
// s = t % kw at stride 1; phased (stride 2, each image row stored as its even
// columns, then its odd ones from element `phase`): (s % 2) x phase + s / 2.
using ChannelBlocksPairRows = void (*)(const uint16_t *image, const int64_t *offsets,
                                       const uint32_t *pair_major, int64_t rows, int64_t ow,
                                       int64_t row_step, int64_t phase, float *sums);
ChannelBlocksPairRows channel_blocks_bf16_pair_rows(int64_t kw, int v, int64_t r, bool phased);
// A padded row's stride-2 phases: out[x / 2 + (x % 2) x phase] = in[x - pad]
// for the padded columns x of the w values of in.
void channel_blocks_bf16_split_row(const uint16_t *in, int64_t w, int64_t pad, int64_t phase,
                                   uint16_t *out);
// bias[v x 16] += the sum of pair_major's pairs (diff_bias's share).
void channel_blocks_bf16_pair_bias(const uint32_t *pair_major, int64_t pairs, int v, float *bias);

}  // namespace dlk::cpu::kernels
