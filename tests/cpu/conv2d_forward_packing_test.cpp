// The forward convolution's GEMM operands packed straight from src
// (backends/cpu_avx512/conv2d_im2col_packer.cpp) on every tier, on the shapes
// where the packed layouts have edges: NHWC channel blocks of odd length and
// longer than the packing kernels' 16 (a bf16 k-pair or int8 k-quad split
// between two taps), several k blocks, stride, padding, dilation and groups.
// The data are small integers, so every tier's sums are exact and the result
// is known bit for bit: bf16 is the rounding of the exact sum, s32 the sum
// itself (u8 and s8 src with a zero point, which padding taps must not add).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "core/numeric.hpp"
#include "tests/cpu/conv2d_exact.hpp"
#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {
namespace {

struct Shape {
  dlk_format format;
  int64_t n, c, h, w, k, kh, kw, stride, pad, dilation, groups;
};

const Shape kShapes[] = {
    // NHWC: 17 and 33 channels per group (blocks of odd length past 16), 48;
    // rows wide enough for whole panels inside the image (the kernels' path).
    {DLK_FORMAT_NHWC, 2, 34, 5, 70, 20, 3, 3, 1, 1, 1, 2},
    {DLK_FORMAT_NHWC, 1, 33, 6, 75, 16, 3, 2, 2, 2, 1, 1},
    {DLK_FORMAT_NHWC, 1, 48, 5, 40, 30, 3, 3, 1, 2, 2, 1},
    // Rows of whole 32-pixel panels: edge panels through the kernels' path,
    // the first image's first row refused it (nothing before it to read).
    {DLK_FORMAT_NHWC, 2, 24, 4, 64, 8, 3, 3, 1, 1, 1, 1},
    // k past one k block of every kernel (bf16 1024, int8 2048): 250 x 3 x 3.
    {DLK_FORMAT_NHWC, 1, 250, 3, 36, 17, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 250, 5, 6, 17, 3, 3, 1, 1, 1, 1},
    // NHWC through the im2col GEMM (a 1x1 at stride 2): from 256 output
    // pixels an image the float forward takes the pixels as the GEMM's rows,
    // dst^T being dst (16 x 16); below, the channels (15 x 17 = 255).
    {DLK_FORMAT_NHWC, 2, 20, 32, 32, 24, 1, 1, 2, 0, 1, 1},
    {DLK_FORMAT_NHWC, 1, 20, 30, 34, 24, 1, 1, 2, 0, 1, 1},
    // NHWC with one input channel (LeNet-5's conv1): the direct-rows kernel
    // on its NCHW twin, dst turned into NHWC; with padding, and a row too
    // short for it (k x 1 vector >= 6 columns).
    {DLK_FORMAT_NHWC, 3, 1, 20, 36, 6, 5, 5, 1, 0, 1, 1},
    {DLK_FORMAT_NHWC, 2, 1, 9, 19, 5, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NHWC, 1, 1, 8, 8, 6, 3, 3, 1, 0, 1, 1},
    // NCHW: odd taps, stride, dilation, groups, a row past a panel's width.
    {DLK_FORMAT_NCHW, 2, 6, 9, 40, 10, 3, 5, 1, 2, 1, 2},
    {DLK_FORMAT_NCHW, 1, 5, 13, 13, 7, 3, 3, 2, 1, 2, 1},
    {DLK_FORMAT_NCHW, 1, 3, 8, 70, 9, 1, 7, 1, 0, 1, 1},
    // NCHW pieces of output rows (the AVX-512 f32 panel kernel): stride 2 on
    // odd and even widths, rows narrower than a panel and a vector (ow 1, 3,
    // 7), padding past the kernel, dilation with stride, 5x5, 7x7/2, 11x11,
    // stride 3, and k blocks that start inside a channel's taps (61 x 9).
    {DLK_FORMAT_NCHW, 1, 61, 9, 11, 5, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NCHW, 2, 4, 28, 28, 6, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 3, 14, 13, 5, 3, 3, 2, 3, 1, 1},
    {DLK_FORMAT_NCHW, 3, 2, 2, 1, 4, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 4, 7, 7, 3, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 3, 17, 37, 4, 3, 3, 2, 2, 2, 1},
    {DLK_FORMAT_NCHW, 2, 6, 14, 14, 16, 5, 5, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 1, 3, 23, 23, 8, 7, 7, 2, 3, 1, 1},
    {DLK_FORMAT_NCHW, 1, 2, 15, 15, 3, 11, 11, 1, 5, 1, 1},
    {DLK_FORMAT_NCHW, 1, 3, 16, 17, 5, 3, 3, 3, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 8, 6, 6, 6, 1, 1, 2, 0, 1, 1},
    // Few pixels and many output channels (3 x 3 outputs, 64 or 65 channels
    // a group): float NCHW takes the pixels as the GEMM's rows, unless the
    // GEMM reads the weights in place (AVX-512, an even count of channels).
    {DLK_FORMAT_NCHW, 2, 5, 5, 5, 64, 3, 3, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 1, 8, 6, 6, 128, 3, 3, 2, 1, 1, 2},
    {DLK_FORMAT_NCHW, 2, 5, 5, 5, 65, 3, 3, 1, 0, 1, 1},
    // 8 to 16 output channels a group, no padding: the AVX-512 tier's direct
    // kernel (blocks of 12 pixels and their rest; stride and dilation; groups).
    {DLK_FORMAT_NCHW, 2, 4, 9, 23, 10, 3, 2, 2, 0, 2, 1},
    {DLK_FORMAT_NCHW, 1, 6, 7, 30, 24, 3, 3, 1, 0, 1, 2},
    // One input channel, 6 output channels (LeNet-5 conv1): direct too, not
    // depthwise, also padded (its zero-padded copy of the image; LeNet-5's pad
    // 2 of a 5x5, padding past the kernel's reach, stride 2 with padding).
    {DLK_FORMAT_NCHW, 2, 1, 12, 13, 6, 3, 3, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 3, 1, 28, 28, 6, 5, 5, 1, 2, 1, 1},
    {DLK_FORMAT_NCHW, 1, 1, 5, 7, 4, 3, 3, 1, 4, 1, 1},
    {DLK_FORMAT_NCHW, 2, 3, 9, 11, 15, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 4, 9, 9, 16, 3, 3, 2, 1, 2, 2},
    // The direct kernel along rows (stride 1, one group, fewer than 16 output
    // channels that fill fewer vectors than the columns): blocks of 5 and 5
    // channels, an odd number of rows, dilation, rows of 35 (two vectors and
    // 3 lanes); blocks of 4 and 5, padding past the kernel's reach.
    {DLK_FORMAT_NCHW, 1, 3, 9, 37, 10, 3, 3, 1, 1, 2, 1},
    {DLK_FORMAT_NCHW, 2, 2, 6, 20, 9, 2, 4, 1, 3, 1, 1},
    // f32 NCHW, stride 1, one group, 16 or more output channels: the AVX-512
    // tier's wide-row kernel (kWideRowShapes below).
    {DLK_FORMAT_NCHW, 2, 4, 12, 12, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 51, 9, 10, 23, 3, 3, 1, 1, 1, 1},
    // 1x1 stride 1: src itself is the GEMM's operand.
    {DLK_FORMAT_NCHW, 2, 20, 5, 7, 10, 1, 1, 1, 0, 1, 2},
    {DLK_FORMAT_NHWC, 2, 20, 5, 7, 10, 1, 1, 1, 0, 1, 2},
};

// The wide-row kernel's edges (conv2d_wide_rows_avx512.cpp): output channels
// one below and above its panels of 8 (15 fails the rule's 16; 17, 23, 25),
// input channels one below and above the rule's 4 and in several blocks of
// channels (51: 2 blocks of 26 and 25; 90: 3 of 30), wide columns (oh x padded
// width) one above a tile of 48 and a vector of 16 (49, 17 with 3 junk),
// padding wider than the kernel, 5x5, 1x3 and 3x1 kernels, one and several
// images per thread.
const Shape kWideRowShapes[] = {
    {DLK_FORMAT_NCHW, 1, 5, 1, 47, 17, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 3, 4, 3, 15, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 3, 8, 12, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 2, 90, 5, 14, 25, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 51, 11, 11, 15, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 2, 6, 9, 20, 24, 3, 3, 1, 4, 1, 1},
    {DLK_FORMAT_NCHW, 1, 7, 12, 30, 17, 5, 5, 1, 2, 1, 1},
    {DLK_FORMAT_NCHW, 2, 8, 6, 40, 32, 1, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 8, 14, 14, 24, 3, 1, 1, 0, 1, 1},
    // Stride 2, the phase planes: 289 wide columns (17 x 17: one above 6
    // tiles), padded widths odd (33, 33: a phase one column shorter) and even
    // (32), input channels one above and one below the rule's 4 and in 5
    // blocks (90), padding wider than the kernel, 5x5, 2x2 (one tap per
    // phase), 1x3, 3x1 (the odd columns' phases unread), 5 tiles at 1-3
    // threads (fewer than 4 a thread: split by panels), and the rule's 3
    // tiles (7 x 8 wide columns, res5a's 14 -> 7: the GEMM).
    {DLK_FORMAT_NCHW, 1, 5, 33, 31, 17, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NCHW, 3, 4, 30, 30, 16, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 3, 32, 32, 16, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NCHW, 2, 90, 20, 31, 25, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 6, 27, 9, 24, 3, 3, 2, 4, 1, 1},
    {DLK_FORMAT_NCHW, 1, 7, 30, 20, 17, 5, 5, 2, 2, 1, 1},
    {DLK_FORMAT_NCHW, 1, 9, 30, 24, 17, 2, 2, 2, 0, 1, 1},
    {DLK_FORMAT_NCHW, 2, 8, 12, 40, 32, 1, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 8, 45, 14, 24, 3, 1, 2, 0, 1, 1},
    {DLK_FORMAT_NCHW, 1, 20, 14, 14, 40, 3, 3, 2, 1, 1, 1},
};

// The wide-row kernel's rule (kernels/conv2d_direct_kernels.hpp): 16 or more
// output and 4 or more input channels, stride 1 or 2, the width of the rows
// it computes (a phase plane's at stride 2) at most 1.2 x ow, and at stride
// 2 more than 3 tiles of 48 of them an image.
bool wide_rows_rule(const std::string &tier, const dlk_conv2d_desc &d, int64_t oh, int64_t ow) {
  const int64_t wp = ow - 1 + (d.kw + d.stride_w - 1) / d.stride_w;
  return tier == "avx512" && d.k >= 16 && d.c >= 4 && wp * 5 <= ow * 6 &&
         (d.stride_h == 1 || oh * wp > 3 * 48);
}

// The channel-lane kernel's edges (kernels/conv2d_channel_lanes_kernels.hpp):
// output channels in one vector (16), one above (17, in a block of 32 with
// 15 lanes unstored), one below and at a block (31, 32), one above (33, a
// second block of one vector), 48 and 65; output widths of one pixel, one
// below, at and above a tile of 14 (13, 14, 15), 29 (two tiles and one
// pixel) and 7 (res5's); padding wider than the kernel (the output rows whose
// taps all fall in it run none: bias alone), dilation 2, 5x5, 1x3,
// 3x1, conv1's 7x7 over 3 channels (147 taps) at stride 2; stride 2 at odd
// and even widths; one image in bands of output rows, a band a thread (the
// padded image outweighing the weights: 12 rows of 6 x 30 padded by 4, 16 of
// 16 x 16, 14 and 16 at stride 2), one copied whole by each thread (the
// weights heavier, or 7 rows: no even split), and several (each thread its
// own at 2 and 3 threads); 144 pixels of 63 taps (one below the rule's
// 64) and 121 pixels (one image of 11 x 11, below its 128); 4104 taps (past
// the rule's 4096 of a large block) over 256 pixels (below its 512 there) and
// over 512. NHWC (the taps' offsets over a padded image of pixels, a pixel c
// floats apart, dst a vector of channels a store) on the same edges, and with
// 128, 144 and 257 channels (a padded pixel 16 floats longer than c; 257 a
// last quad of one channel, past the 256 below which int8 NHWC alone took
// this kernel until Zen 4 measured it); int8 NHWC
// into u8, s8 or f32 at 8 quad taps (2 quads, 2x2), its floor, and into s32
// at 32 (2 quads, 4x4), s32's.
const Shape kChannelLaneShapes[] = {
    {DLK_FORMAT_NCHW, 1, 8, 12, 12, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 9, 10, 14, 17, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 2, 8, 8, 15, 33, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 8, 11, 29, 48, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 4, 8, 7, 13, 65, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 6, 8, 24, 1, 32, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 10, 6, 30, 32, 3, 3, 1, 4, 1, 1},
    {DLK_FORMAT_NCHW, 1, 8, 16, 16, 31, 3, 3, 1, 2, 2, 1},
    {DLK_FORMAT_NCHW, 1, 4, 14, 14, 24, 5, 5, 1, 2, 1, 1},
    {DLK_FORMAT_NCHW, 1, 24, 12, 20, 16, 1, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 24, 20, 12, 20, 3, 1, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 1, 8, 28, 28, 32, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 8, 31, 33, 17, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NCHW, 2, 3, 30, 30, 24, 7, 7, 2, 3, 1, 1},
    {DLK_FORMAT_NCHW, 3, 9, 14, 14, 40, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 7, 12, 12, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 8, 7, 20, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 8, 11, 11, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 456, 16, 16, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 2, 456, 16, 16, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NHWC, 1, 8, 12, 12, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NHWC, 2, 8, 8, 15, 33, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NHWC, 4, 8, 7, 13, 65, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NHWC, 6, 8, 24, 1, 32, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NHWC, 1, 10, 6, 30, 32, 3, 3, 1, 4, 1, 1},
    {DLK_FORMAT_NHWC, 1, 8, 16, 16, 31, 3, 3, 1, 2, 2, 1},
    {DLK_FORMAT_NHWC, 1, 24, 20, 12, 20, 3, 1, 1, 0, 1, 1},
    {DLK_FORMAT_NHWC, 1, 8, 31, 33, 17, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NHWC, 2, 3, 30, 30, 24, 7, 7, 2, 3, 1, 1},
    {DLK_FORMAT_NHWC, 1, 8, 11, 11, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NHWC, 1, 8, 7, 20, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NHWC, 1, 128, 12, 12, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NHWC, 1, 144, 24, 23, 33, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NHWC, 1, 257, 12, 12, 17, 3, 3, 1, 1, 1, 1},
    // c not a whole number of bf16 pairs and int8 quads (29: the last pair
    // one channel, the last quad one; 30: the last quad two), two images at
    // stride 2 over two blocks.
    {DLK_FORMAT_NHWC, 1, 29, 16, 16, 24, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NHWC, 2, 30, 24, 24, 40, 3, 3, 2, 1, 1, 1},
    // NHWC's floor of 16 taps: 27 (VGG-16 conv1_1's 3 channels; bf16 18
    // pairs), 15 (bf16 9 pairs).
    {DLK_FORMAT_NHWC, 1, 3, 20, 20, 24, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NHWC, 1, 5, 12, 20, 24, 1, 3, 1, 0, 1, 1},
    {DLK_FORMAT_NHWC, 1, 8, 13, 13, 16, 2, 2, 1, 0, 1, 1},
    {DLK_FORMAT_NHWC, 1, 8, 15, 15, 16, 4, 4, 1, 0, 1, 1},
};

// The channel-lane kernel's rule: f32 NCHW or NHWC, one group, a kernel larger than
// 1x1, stride_w 1 or 2, 16 or more output channels, 128 or more output pixels
// (all images), 64 or more taps (f32 and bf16 NHWC 16, int8 NHWC 32 quads,
// into u8, s8 or f32 8), and 512 or more pixels past 4096 taps. (16 channels
// unpadded go to the few-channel kernel first: no shape here is one.)
// floor_taps: the taps the floor counts (0: c x kh x kw).
bool channel_lanes_rule(const std::string &tier, const dlk_conv2d_desc &d, int64_t oh,
                        int64_t ow, int64_t floor_taps = 0) {
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  const bool float_nhwc =
      nhwc && (d.src_type == DLK_DTYPE_F32 || d.src_type == DLK_DTYPE_BF16);
  const bool int8_nhwc = nhwc && (d.src_type == DLK_DTYPE_U8 || d.src_type == DLK_DTYPE_S8);
  const int64_t min_taps = float_nhwc  ? 16
                           : !int8_nhwc ? 64
                           : d.dst_type != DLK_DTYPE_S32 ? 8
                                                         : 32;
  return tier == "avx512" && d.groups == 1 && d.kh * d.kw > 1 && d.stride_w <= 2 && d.k >= 16 &&
         d.n * oh * ow >= 128 && (floor_taps ? floor_taps : d.c * d.kh * d.kw) >= min_taps &&
         (d.c * d.kh * d.kw <= 4096 || d.n * oh * ow >= 512);
}

// The same for int8 on the channel-lane kernel: k-quads on vpdpbusd (a CPU
// with AVX512_VNNI), the floors on the quads' taps (NCHW into s32: on its
// channels' taps), NCHW and NHWC (the last quad of an NHWC pixel ending in
// the zero point where c is not a multiple of 4).
bool int8_channel_lanes_rule(const std::string &tier, const dlk_conv2d_desc &d, int64_t oh,
                             int64_t ow) {
  dlk_conv2d_desc quads = d;
  quads.c = (d.c + 3) / 4;
  const bool nchw = d.format == DLK_FORMAT_NCHW;
  return __builtin_cpu_supports("avx512vnni") &&
         !lowers_to_amx(tier, d.src_type, d.c, d.groups) &&
         channel_lanes_rule(tier, quads, oh, ow,
                            nchw && d.dst_type == DLK_DTYPE_S32 ? d.c * d.kh * d.kw : 0);
}

// The wide-row rule for int8 (k-quads on vpdpbusd): also dense, a CPU with
// AVX512_VNNI, and a kernel larger than 1x1; one NCHW group of 16 or more
// output channels, or groups of 4 to 15 (each group a convolution of its
// own, NHWC's turned into NCHW planes); 3 or more input channels a group (a
// quad three-quarters full); the
// rows' width up to 1.2 x ow, and at stride 2 more than 3 tiles of 48 wide
// columns.
bool int8_wide_rows_rule(const std::string &tier, const dlk_conv2d_desc &d, int64_t oh,
                         int64_t ow) {
  const int64_t wp = ow - 1 + (d.kw + d.stride_w - 1) / d.stride_w;
  const int64_t kg = d.k / d.groups;
  const bool channels = d.groups == 1 ? d.k >= 16 : kg >= 4 && kg < 16;
  return __builtin_cpu_supports("avx512vnni") && tier == "avx512" &&
         !lowers_to_amx(tier, d.src_type, d.c, d.groups) &&
         (d.format == DLK_FORMAT_NCHW || d.groups > 1) && channels && d.kh * d.kw > 1 &&
         d.dilation_h == 1 &&
         d.stride_h <= 2 && d.c / d.groups >= 3 && wp * 5 <= ow * 6 &&
         (d.stride_h == 1 || oh * wp > 3 * 48);
}

// The integer GEMM's lowering of an int8 forward: with the output channels as
// rows (the weights as its s8 A, im2col packed as B) on NCHW where the tier
// has that kernel (AVX-512 with VNNI), else the pixels as rows (im2col^T
// packed as A).
const char *int8_im2col_lowering(const std::string &tier, const dlk_conv2d_desc &d) {
  return __builtin_cpu_supports("avx512vnni") && tier == "avx512" &&
                 d.format == DLK_FORMAT_NCHW
             ? "im2col_packed+"
             : "im2col_packed_a+";
}

// The int8 wide-row kernel's k-quads (conv2d_wide_rows_int8_avx512vnni.cpp):
// input channels one below, at and one above a quad (2 fails the rule's 3;
// 3, 4, 5, 7, 8, 9; 3 at conv1's 7x7 stride 2, its 49 taps past the weights'
// one-permutation quads of up to 16), and in one and two blocks of quads (168 = 42 quads, the 3x3
// block; 169: 2 blocks of 22 and 21), at stride 1 and 2, with padding wider
// than the kernel, the rows' width one below and one above the int8 rule's
// 1.3 x ow (9 / 7: res5b 3x3; 8 / 6), at stride 2 two tiles (res5a 3x3's 7 x 8);
// kWideRowShapes' edges run too.
const Shape kInt8QuadShapes[] = {
    {DLK_FORMAT_NCHW, 2, 2, 9, 20, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 2, 3, 9, 20, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 3, 30, 30, 16, 7, 7, 2, 3, 1, 1},
    {DLK_FORMAT_NCHW, 1, 4, 9, 20, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 2, 5, 7, 47, 17, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 7, 30, 31, 23, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 8, 6, 21, 16, 3, 3, 1, 3, 1, 1},
    {DLK_FORMAT_NCHW, 3, 9, 5, 14, 33, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 168, 6, 12, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 2, 169, 6, 10, 24, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 169, 17, 17, 17, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NCHW, 2, 8, 7, 7, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 8, 6, 6, 16, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 2, 12, 14, 14, 24, 3, 3, 2, 1, 1, 1},
    // 1x1 (the GEMM, src as its A, packed by pack_panel_contiguous four
    // 14-pixel panels at a time): input channels one below, at and one above
    // a quad (3, 4, 5, 7, 8, 9), around a 64-byte line (63, 64, 65), 639
    // and 641; pixels one below, at and one above four panels (55, 56, 57)
    // and a panel (13, 15), and 289 (21 panels); padded (im2col), and
    // stride 2.
    {DLK_FORMAT_NCHW, 2, 3, 7, 7, 16, 1, 1, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 2, 4, 7, 7, 16, 1, 1, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 1, 5, 5, 11, 17, 1, 1, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 3, 7, 1, 57, 23, 1, 1, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 1, 8, 1, 13, 16, 1, 1, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 1, 9, 3, 5, 33, 1, 1, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 2, 63, 2, 25, 64, 1, 1, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 1, 64, 7, 8, 64, 1, 1, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 1, 65, 17, 17, 72, 1, 1, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 1, 639, 1, 49, 640, 1, 1, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 1, 641, 1, 17, 641, 1, 1, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 1, 12, 5, 9, 16, 1, 1, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 16, 6, 8, 16, 1, 1, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 1, 17, 6, 8, 16, 1, 1, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 1, 8, 14, 14, 32, 1, 1, 2, 0, 1, 1},
};

struct Problem {
  dlk_conv2d_desc desc;
  int64_t oh = 0, ow = 0;
};

Problem problem(const Shape &s, dlk_dtype src, dlk_dtype dst) {
  Problem p;
  dlk_conv2d_desc_init(&p.desc, src, s.n, s.c, s.h, s.w, s.k, s.kh, s.kw);
  p.desc.format = s.format;
  p.desc.stride_h = p.desc.stride_w = s.stride;
  p.desc.pad_h = p.desc.pad_w = s.pad;
  p.desc.dilation_h = p.desc.dilation_w = s.dilation;
  p.desc.groups = s.groups;
  p.desc.weights_type = src == DLK_DTYPE_U8 || src == DLK_DTYPE_S8 ? DLK_DTYPE_S8 : src;
  p.desc.dst_type = dst;
  REQUIRE(dlk_conv2d_output_shape(&p.desc, &p.oh, &p.ow) == DLK_STATUS_SUCCESS);
  return p;
}

// Runs the f32 forward of p (with bias and ReLU where `epilogue`) on integer
// data, whose sums f32 holds exactly, and checks dst against their exact()
// sums.
void check_f32_forward_exact(const Context &ctx, Problem &p, const std::vector<int> &src,
                             const std::vector<int> &weights, const std::vector<int64_t> &sums,
                             const std::vector<float> &bias, bool epilogue) {
  dlk_conv2d_desc &d = p.desc;
  d.relu = epilogue;
  Buffer<float> src_buf(ctx, cast<float>(src)), weights_buf(ctx, cast<float>(weights));
  Buffer<float> bias_buf(ctx, bias);
  Buffer<float> dst(ctx, std::vector<float>(d.n * d.k * p.oh * p.ow, -1.0f));
  REQUIRE(dlk_conv2d_forward(ctx.get(), &d, src_buf.data(), weights_buf.data(),
                             epilogue ? bias_buf.data() : nullptr,
                             dst.data()) == DLK_STATUS_SUCCESS);
  std::vector<float> expected = cast<float>(sums);
  const int64_t plane = p.oh * p.ow;
  for (size_t e = 0; e < expected.size() && epilogue; ++e) {
    const int64_t o =
        d.format == DLK_FORMAT_NHWC ? int64_t(e) % d.k : int64_t(e) / plane % d.k;
    expected[e] = std::max(0.0f, expected[e] + bias[o]);
  }
  CHECK(dst.values() == expected);
}

}  // namespace

TEST_CASE("conv2d forward f32: packed panels give the exact sums on every tier",
          "[cpu][conv2d]") {
  std::mt19937 rng(8);
  for (const std::string &tier : cpu_tiers()) {
    const Context ctx(tier);
    for (const Shape &shape : kShapes) {
      Problem p = problem(shape, DLK_DTYPE_F32, DLK_DTYPE_F32);
      dlk_conv2d_desc &d = p.desc;
      INFO(tier << " c " << d.c << " h " << d.h << " w " << d.w << " k " << d.k << " kh "
                << d.kh << " stride " << d.stride_h << " pad " << d.pad_h << " groups "
                << d.groups << (d.format == DLK_FORMAT_NHWC ? " nhwc" : " nchw"));
      const std::vector<int> src = random_ints(d.n * d.c * d.h * d.w, -3, 3, rng);
      const std::vector<int> weights =
          random_ints(d.k * d.c / d.groups * d.kh * d.kw, -3, 3, rng);
      // Bias and ReLU on every other shape: the GEMM's store adds them per
      // row (pixels as columns) or per column (pixels as rows).
      const bool epilogue = (&shape - kShapes) % 2 == 1;
      const std::vector<float> bias = cast<float>(random_ints(d.k, -20, 20, rng));
      check_f32_forward_exact(ctx, p, src, weights,
                              exact_forward(p.desc, p.oh, p.ow, src, weights, 0), bias,
                              epilogue);
      const int64_t plane = p.oh * p.ow;
      const int64_t kg = d.k / d.groups;
      // Pixels as rows exactly where the output channels fill the tiles
      // better (here, 9 or 16 pixels against 64 or 65 channels a group) and
      // the GEMM would not read the weights in place as A: AVX-512's kernels
      // read an even count of rows so (gemm_driver.cpp), and turned the
      // weights would be packed as B.
      const bool few_pixels = d.format == DLK_FORMAT_NCHW && plane <= 16 && kg >= 64;
      if (few_pixels)
        CHECK((implementation(ctx).find("im2col_packed_a+") == 0) ==
              (tier != "avx512" || kg % 2 == 1));
      // NHWC through the im2col GEMM: the pixels as its rows from 256 an
      // image in one group (conv2d_im2col.cpp, pixels_as_rows).
      if (d.format == DLK_FORMAT_NHWC && implementation(ctx).find("im2col_packed") == 0)
        CHECK((implementation(ctx).find("im2col_packed_a+") == 0) ==
              (plane >= 256 && d.groups == 1));
      const int64_t cg = d.c / d.groups;
      // The direct kernels' rules (kernels/conv2d_direct_rows_kernels.hpp,
      // conv2d_direct_kernels.hpp): along rows where k x the row's vectors
      // are fewer than its columns, else channels in the lanes, padded only
      // below 16 output channels a group (the wide-row kernel's).
      const bool avx512_nchw = tier == "avx512" && d.format == DLK_FORMAT_NCHW && d.kh * d.kw > 1;
      const bool rows = avx512_nchw && d.groups == 1 && d.stride_h == 1 && d.k < 16 &&
                        d.k * ((p.ow + 15) / 16) < p.ow;
      const bool direct = avx512_nchw && !rows && kg <= 16 &&
                          (kg >= 8 || (cg == 1 && kg >= 4)) && (d.pad_h == 0 || kg < 16);
      CHECK((implementation(ctx) == "avx512:conv2d_direct_rows_f32") == rows);
      const bool rows_nhwc = tier == "avx512" && d.format == DLK_FORMAT_NHWC && d.c == 1 &&
                             d.kh * d.kw > 1 && d.stride_h == 1 && d.k < 16 &&
                             d.k * ((p.ow + 15) / 16) < p.ow;
      CHECK((implementation(ctx) == "avx512:conv2d_direct_rows_f32_nhwc") == rows_nhwc);
      CHECK((implementation(ctx) == "avx512:conv2d_direct_f32") == direct);
    }
  }
}

TEST_CASE("conv2d forward f32: the wide-row and channel-lane kernels' edges give the exact sums "
          "on 1-3 threads",
          "[cpu][conv2d]") {
  std::mt19937 rng(9);
  std::vector<Shape> shapes(std::begin(kWideRowShapes), std::end(kWideRowShapes));
  shapes.insert(shapes.end(), std::begin(kChannelLaneShapes), std::end(kChannelLaneShapes));
  // The data and their sums once a shape (the sums are most of the time under
  // a sanitizer); every tier and thread count reads them.
  for (const Shape &shape : shapes) {
    Problem p = problem(shape, DLK_DTYPE_F32, DLK_DTYPE_F32);
    dlk_conv2d_desc &d = p.desc;
    const std::vector<int> src = random_ints(d.n * d.c * d.h * d.w, -3, 3, rng);
    const std::vector<int> weights = random_ints(d.k * d.c * d.kh * d.kw, -3, 3, rng);
    const std::vector<float> bias = cast<float>(random_ints(d.k, -20, 20, rng));
    const std::vector<int64_t> sums = exact_forward(p.desc, p.oh, p.ow, src, weights, 0);
    for (const std::string &tier : cpu_tiers())
      for (const int threads : {1, 2, 3}) {
        const Context ctx(tier, threads);
        INFO(tier << " threads " << threads << " n " << d.n << " c " << d.c << " h " << d.h
                  << " w " << d.w << " k " << d.k << " kh " << d.kh << " kw " << d.kw << " stride "
                  << d.stride_h << " pad " << d.pad_h);
        for (const bool epilogue : {false, true}) {
          check_f32_forward_exact(ctx, p, src, weights, sums, bias, epilogue);
          const bool lanes = channel_lanes_rule(tier, d, p.oh, p.ow);
          const bool nchw = d.format == DLK_FORMAT_NCHW;
          const bool wide = !lanes && nchw && d.dilation_h == 1 && wide_rows_rule(tier, d, p.oh, p.ow);
          CHECK((implementation(ctx) == (nchw ? "avx512:conv2d_channel_lanes_f32"
                                              : "avx512:conv2d_channel_lanes_f32_nhwc")) == lanes);
          CHECK((implementation(ctx) == "avx512:conv2d_wide_rows_f32") == wide);
        }
      }
  }
}

TEST_CASE("conv2d forward f16/bf16: the wide-row kernel (widened or bf16 pairs) and the "
          "channel-lane kernel (bf16 pairs) give the exact sums, rounded once, on 1-3 threads",
          "[cpu][conv2d]") {
  std::mt19937 rng(10);
  std::vector<Shape> shapes(std::begin(kWideRowShapes), std::end(kWideRowShapes));
  shapes.insert(shapes.end(), std::begin(kChannelLaneShapes), std::end(kChannelLaneShapes));
  // bf16 in k-pairs where vdpbf16ps outpaces the FMAs (cpu_peak.hpp).
  const bool pairs_cpu = __builtin_cpu_supports("avx512bf16") && __builtin_cpu_is("amd");
  // The data and their sums once a dtype and shape (the sums are most of the
  // time under a sanitizer); every tier and thread count reads them.
  for (const dlk_dtype type : {DLK_DTYPE_BF16, DLK_DTYPE_F16})
    for (const Shape &shape : shapes) {
      Problem p = problem(shape, type, type);
      dlk_conv2d_desc &d = p.desc;
      d.relu = 1;
      // f16: sums below 2048, which it holds exactly.
      const int range = type == DLK_DTYPE_F16 ? 1 : 3;
      const std::vector<int> src = random_ints(d.n * d.c * d.h * d.w, -range, range, rng);
      const std::vector<int> weights = random_ints(d.k * d.c * d.kh * d.kw, -range, range, rng);
      const std::vector<int> bias = random_ints(d.k, -20, 20, rng);
      const auto bits = [&](int64_t v) {
        return type == DLK_DTYPE_F16 ? f16_bits(v) : bf16_bits(static_cast<float>(v));
      };
      std::vector<uint16_t> src_bits, weight_bits;
      for (const int v : src) src_bits.push_back(bits(v));
      for (const int v : weights) weight_bits.push_back(bits(v));
      const std::vector<int64_t> sums = exact_forward(p.desc, p.oh, p.ow, src, weights, 0);
      const bool nchw = d.format == DLK_FORMAT_NCHW;
      std::vector<uint16_t> expected;
      for (size_t e = 0; e < sums.size(); ++e) {
        const int64_t o = nchw ? int64_t(e) / (p.oh * p.ow) % d.k : int64_t(e) % d.k;
        expected.push_back(bits(std::max<int64_t>(0, sums[e] + bias[o])));
      }
      for (const std::string &tier : cpu_tiers())
        for (const int threads : {1, 2, 3}) {
          const Context ctx(tier, threads);
          INFO(tier << " " << dlk_dtype_name(type) << " threads " << threads << " n " << d.n
                    << " c " << d.c << " h " << d.h << " w " << d.w << " k " << d.k << " kh "
                    << d.kh << " kw " << d.kw << " stride " << d.stride_h << " pad " << d.pad_h);
          Buffer<uint16_t> src_buf(ctx, src_bits), weights_buf(ctx, weight_bits);
          Buffer<float> bias_buf(ctx, cast<float>(bias));
          Buffer<uint16_t> dst(ctx, std::vector<uint16_t>(d.n * d.k * p.oh * p.ow, 0xffff));
          REQUIRE(dlk_conv2d_forward(ctx.get(), &d, src_buf.data(), weights_buf.data(),
                                     bias_buf.data(), dst.data()) == DLK_STATUS_SUCCESS);
          CHECK(dst.values() == expected);
          // bf16 in k-pairs on the channel-lane kernel where its rule holds
          // on the pairs' taps (NHWC with c odd: the last pair's second
          // channel zero), else the rule as for f32; bf16
          // widened where vdpbf16ps does not outpace the FMAs (Intel), else in
          // k-pairs on vdpbf16ps (odd channel counts: the last pair's second
          // channel zero).
          dlk_conv2d_desc paired = d;
          paired.c = (d.c + 1) / 2;
          const bool lanes = type == DLK_DTYPE_BF16 && pairs_cpu &&
                             channel_lanes_rule(tier, paired, p.oh, p.ow);
          const bool wide = !lanes && nchw && d.dilation_h == 1 && wide_rows_rule(tier, d, p.oh, p.ow);
          const std::string name = implementation(ctx);
          if (lowers_to_amx(tier, type, d.c, d.groups)) {  // the GEMM or conv2d_amx
            CHECK(name.find("amx") != std::string::npos);
            continue;
          }
          const std::string widened = std::string("avx512:conv2d_wide_rows_") +
                                      dlk_dtype_name(type) + "_as_f32";
          CHECK((name == (nchw ? "avx512:conv2d_channel_lanes_bf16"
                               : "avx512:conv2d_channel_lanes_bf16_nhwc")) == lanes);
          if (type == DLK_DTYPE_F16 || !wide) CHECK((name == widened) == wide);
          else CHECK((name == widened || name == "avx512:conv2d_wide_rows_bf16"));
        }
    }
}

TEST_CASE("conv2d forward bf16: packed panels give the exact sums, rounded once, on every tier",
          "[cpu][conv2d]") {
  std::mt19937 rng(8);
  for (const std::string &tier : cpu_tiers()) {
    const Context ctx(tier);
    for (const Shape &shape : kShapes) {
      const Problem p = problem(shape, DLK_DTYPE_BF16, DLK_DTYPE_BF16);
      const dlk_conv2d_desc &d = p.desc;
      INFO(tier << " c " << d.c << " k " << d.k << " groups " << d.groups
                << (d.format == DLK_FORMAT_NHWC ? " nhwc" : " nchw"));
      const std::vector<int> src = random_ints(d.n * d.c * d.h * d.w, -3, 3, rng);
      const std::vector<int> weights =
          random_ints(d.k * d.c / d.groups * d.kh * d.kw, -3, 3, rng);
      Buffer<uint16_t> src_buf(ctx, to_bf16(src)), weights_buf(ctx, to_bf16(weights));
      Buffer<uint16_t> dst(ctx, std::vector<uint16_t>(d.n * d.k * p.oh * p.ow, 0xffff));
      REQUIRE(dlk_conv2d_forward(ctx.get(), &d, src_buf.data(), weights_buf.data(), nullptr,
                                 dst.data()) == DLK_STATUS_SUCCESS);
      std::vector<uint16_t> expected;
      for (int64_t v : exact_forward(p.desc, p.oh, p.ow, src, weights, 0))
        expected.push_back(bf16_bits(float(v)));
      CHECK(dst.values() == expected);
    }
  }
}

// The AVX-512 micro-kernels' store applies bias and ReLU and rounds into bf16
// C on the last k block only, the k blocks before summing into the f32
// workspace (gemm_driver.cpp, rounds_in_tile): NHWC rows of 300 output channels, and 1350 or 1170
// taps (two k blocks of the bf16 kernel; NCHW at stride 3 keeps the GEMM, its
// bias per row), a bias per channel and ReLU, must give the exact sums with
// their own channel's bias, rounded once.
TEST_CASE("conv2d forward bf16: bias and ReLU once on the exact sums, rounded once",
          "[cpu][conv2d]") {
  std::mt19937 rng(9);
  for (const std::string &tier : cpu_tiers()) {
    const Context ctx(tier, 2);
    for (const Shape &shape : {Shape{DLK_FORMAT_NHWC, 1, 8, 5, 6, 300, 1, 1, 1, 0, 1, 1},
                               Shape{DLK_FORMAT_NHWC, 1, 8, 5, 6, 300, 3, 3, 1, 1, 1, 1},
                               Shape{DLK_FORMAT_NHWC, 1, 150, 5, 6, 300, 3, 3, 1, 1, 1, 1},
                               Shape{DLK_FORMAT_NCHW, 1, 130, 9, 9, 40, 3, 3, 3, 1, 1, 1}})
      for (const bool relu : {false, true}) {
        Problem p = problem(shape, DLK_DTYPE_BF16, DLK_DTYPE_BF16);
        dlk_conv2d_desc &d = p.desc;
        d.relu = relu;
        INFO(tier << " c " << d.c << " kernel " << d.kh << "x" << d.kw
                  << (d.format == DLK_FORMAT_NHWC ? " nhwc" : " nchw") << (relu ? " relu" : ""));
        const std::vector<int> src = random_ints(d.n * d.c * d.h * d.w, -3, 3, rng);
        const std::vector<int> weights = random_ints(d.k * d.c * d.kh * d.kw, -3, 3, rng);
        const std::vector<int> bias = random_ints(d.k, -60, 60, rng);
        Buffer<uint16_t> src_buf(ctx, to_bf16(src)), weights_buf(ctx, to_bf16(weights));
        Buffer<float> bias_buf(ctx, std::vector<float>(bias.begin(), bias.end()));
        Buffer<uint16_t> dst(ctx, std::vector<uint16_t>(d.n * d.k * p.oh * p.ow, 0xffff));
        REQUIRE(dlk_conv2d_forward(ctx.get(), &d, src_buf.data(), weights_buf.data(),
                                   bias_buf.data(), dst.data()) == DLK_STATUS_SUCCESS);
        std::vector<uint16_t> expected;
        const std::vector<int64_t> sums = exact_forward(p.desc, p.oh, p.ow, src, weights, 0);
        const int64_t plane = p.oh * p.ow;
        for (size_t e = 0; e < sums.size(); ++e) {
          const int64_t o = d.format == DLK_FORMAT_NHWC ? int64_t(e) % d.k
                                                         : int64_t(e) / plane % d.k;
          const int64_t v = sums[e] + bias[o];
          expected.push_back(bf16_bits(float(relu && v < 0 ? 0 : v)));
        }
        CHECK(dst.values() == expected);
      }
  }
}

TEST_CASE("conv2d forward int8: packed im2col rows give the exact sums on every tier",
          "[cpu][conv2d]") {
  std::mt19937 rng(8);
  for (const std::string &tier : cpu_tiers()) {
    const Context ctx(tier);
    for (const dlk_dtype type : {DLK_DTYPE_U8, DLK_DTYPE_S8}) {
      const bool u8 = type == DLK_DTYPE_U8;
      for (const Shape &shape : kShapes) {
        Problem p = problem(shape, type, DLK_DTYPE_S32);
        dlk_conv2d_desc &d = p.desc;
        // The extremes, and a zero point far from 0 whose padding taps must add nothing.
        d.src_zero_point = u8 ? 201 : -77;
        INFO(tier << " " << dlk_dtype_name(type) << " c " << d.c << " k " << d.k << " groups "
                  << d.groups << (d.format == DLK_FORMAT_NHWC ? " nhwc" : " nchw"));
        const std::vector<int> src =
            random_ints(d.n * d.c * d.h * d.w, u8 ? 0 : -128, u8 ? 255 : 127, rng);
        const std::vector<int> weights =
            random_ints(d.k * d.c / d.groups * d.kh * d.kw, -128, 127, rng);
        Buffer<int8_t> weights_buf(ctx, cast<int8_t>(weights));
        Buffer<int32_t> dst(ctx, std::vector<int32_t>(d.n * d.k * p.oh * p.ow, -1));
        dlk_status status;
        if (u8) {
          Buffer<uint8_t> src_buf(ctx, cast<uint8_t>(src));
          status = dlk_conv2d_forward(ctx.get(), &d, src_buf.data(), weights_buf.data(), nullptr,
                                      dst.data());
        } else {
          Buffer<int8_t> src_buf(ctx, cast<int8_t>(src));
          status = dlk_conv2d_forward(ctx.get(), &d, src_buf.data(), weights_buf.data(), nullptr,
                                      dst.data());
        }
        REQUIRE(status == DLK_STATUS_SUCCESS);
        // (groups == c is depthwise: the direct kernel, staged.)
        const bool nchw = d.format == DLK_FORMAT_NCHW;
        const std::string lowering = shape.groups == shape.c ? tier + ":depthwise_direct_"
                                     : int8_channel_lanes_rule(tier, d, p.oh, p.ow)
                                         ? (nchw ? "avx512:conv2d_channel_lanes_int8"
                                                 : "avx512:conv2d_channel_lanes_int8_nhwc")
                                     : int8_wide_rows_rule(tier, d, p.oh, p.ow)
                                         ? "avx512:conv2d_wide_rows_int8"
                                     : shape.kh * shape.kw == 1 && shape.stride == 1 &&
                                             shape.pad == 0
                                         ? "gemm:"
                                         : int8_im2col_lowering(tier, d);
        CHECK(implementation(ctx).find(lowering) == 0);
        CHECK(dst.values() ==
              cast<int32_t>(exact_forward(p.desc, p.oh, p.ow, src, weights, d.src_zero_point)));
      }
    }
  }
}

TEST_CASE("conv2d forward int8: the wide-row and channel-lane kernels' k-quads and the 1x1 GEMM's "
          "packed src give the exact sums, requantized as dlk.h says, on 1-3 threads",
          "[cpu][conv2d]") {
  std::mt19937 rng(11);
  std::vector<Shape> shapes(std::begin(kWideRowShapes), std::end(kWideRowShapes));
  shapes.insert(shapes.end(), std::begin(kInt8QuadShapes), std::end(kInt8QuadShapes));
  shapes.insert(shapes.end(), std::begin(kChannelLaneShapes), std::end(kChannelLaneShapes));
  // The data and their sums once a shape (the sums are most of the time under
  // a sanitizer); every tier, thread count and dst type reads them.
  for (const Shape &shape : shapes) {
    const size_t index = static_cast<size_t>(&shape - shapes.data());
    // u8 and s8 src by turns; dst s32 (the sums themselves, ReLU on every
    // other shape), then u8 (per-channel scales), s8 (one scale) and f32
    // (per-channel), each with bias and ReLU, through the integer store.
    const dlk_dtype type = index % 2 ? DLK_DTYPE_S8 : DLK_DTYPE_U8;
    const bool u8 = type == DLK_DTYPE_U8;
    Problem p = problem(shape, type, DLK_DTYPE_S32);
    dlk_conv2d_desc &d = p.desc;
    // Zero points far from 0, whose padding taps must add nothing; and every
    // other u8 shape's 0 (activations after ReLU), without which the NCHW
    // GEMM with the channels as rows reads the weights in place.
    d.src_zero_point = !u8 ? -77 : index % 4 == 2 ? 0 : 201;
    const std::vector<int> src =
        random_ints(d.n * d.c * d.h * d.w, u8 ? 0 : -128, u8 ? 255 : 127, rng);
    const std::vector<int> weights = random_ints(d.k * d.c * d.kh * d.kw, -128, 127, rng);
    const std::vector<float> bias = cast<float>(random_ints(d.k, -200, 200, rng));
    const std::vector<int64_t> sums =
        exact_forward(p.desc, p.oh, p.ow, src, weights, d.src_zero_point);
    std::vector<float> scales;
    for (int64_t o = 0; o < d.k; ++o) scales.push_back(0.001f * static_cast<float>(3 + o % 7));
    for (const std::string &tier : cpu_tiers())
      for (const int threads : {1, 2, 3}) {
        const Context ctx(tier, threads);
        for (const dlk_dtype out : {DLK_DTYPE_S32, DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_F32}) {
          d.dst_type = out;
          d.dst_zero_point = out == DLK_DTYPE_U8 ? 100 : out == DLK_DTYPE_S8 ? -5 : 0;
          d.relu = out != DLK_DTYPE_S32 || index % 2 == 0;
          d.scale_mode = out == DLK_DTYPE_S32   ? DLK_SCALE_NONE
                         : out == DLK_DTYPE_S8 ? DLK_SCALE_PER_TENSOR
                                               : DLK_SCALE_PER_CHANNEL;
          d.scales = scales.data();
          INFO(tier << " threads " << threads << " " << dlk_dtype_name(type) << " > "
                    << dlk_dtype_name(out) << " n " << d.n << " c " << d.c << " h " << d.h
                    << " w " << d.w << " k " << d.k << " kh " << d.kh << " kw " << d.kw
                    << " stride " << d.stride_h << " pad " << d.pad_h);
          // (No bias on every third shape: f32 dst keeps the product's bits.)
          const bool with_bias = out != DLK_DTYPE_S32 && index % 3 != 1;
          Buffer<int8_t> weights_buf(ctx, cast<int8_t>(weights));
          Buffer<float> bias_buf(ctx, bias);
          const size_t count = static_cast<size_t>(d.n * d.k * p.oh * p.ow);
          Buffer<unsigned char> dst(ctx, std::vector<unsigned char>(count * dlk_dtype_size(out), 0xa5));
          Buffer<uint8_t> src_u8(ctx, cast<uint8_t>(src));
          Buffer<int8_t> src_s8(ctx, cast<int8_t>(src));
          REQUIRE(dlk_conv2d_forward(ctx.get(), &d,
                                     u8 ? static_cast<void *>(src_u8.data()) : src_s8.data(),
                                     weights_buf.data(), with_bias ? bias_buf.data() : nullptr,
                                     dst.data()) == DLK_STATUS_SUCCESS);
          const std::vector<unsigned char> got = dst.values();
          const int64_t plane = p.oh * p.ow;
          size_t wrong = 0;
          const bool nchw = d.format == DLK_FORMAT_NCHW;
          for (size_t e = 0; e < count; ++e) {
            const int64_t o = nchw ? static_cast<int64_t>(e) / plane % d.k : int64_t(e) % d.k;
            // dlk.h: v = (float)acc * scale_k + bias_k, ReLU, then requantized.
            const auto acc = static_cast<int32_t>(sums[e]);
            if (out == DLK_DTYPE_S32) {
              int32_t v = 0;
              std::memcpy(&v, &got[e * 4], 4);
              wrong += v != (d.relu && acc < 0 ? 0 : acc);
              continue;
            }
            const float scale = out == DLK_DTYPE_S8 ? scales[0] : scales[static_cast<size_t>(o)];
            float v = static_cast<float>(acc) * scale;
            if (with_bias) v = v + bias[static_cast<size_t>(o)];
            if (v < 0.0f) v = 0.0f;
            if (out == DLK_DTYPE_F32) {
              float f = 0;
              std::memcpy(&f, &got[e * 4], 4);
              wrong += std::memcmp(&f, &v, 4) != 0;
              continue;
            }
            const float lo = out == DLK_DTYPE_U8 ? 0.0f : -128.0f, hi = out == DLK_DTYPE_U8 ? 255.0f : 127.0f;
            const float r = std::min(hi, std::max(lo, std::nearbyint(v) + static_cast<float>(d.dst_zero_point)));
            const int expected = static_cast<int>(r);
            const int value = out == DLK_DTYPE_U8 ? int{got[e]} : int{static_cast<int8_t>(got[e])};
            wrong += value != expected;
          }
          CHECK(wrong == 0);
          // The channel-lane kernel first where its rule holds.
          const bool lanes = int8_channel_lanes_rule(tier, d, p.oh, p.ow);
          const bool wide = !lanes && int8_wide_rows_rule(tier, d, p.oh, p.ow);
          CHECK((implementation(ctx) == (nchw ? "avx512:conv2d_channel_lanes_int8"
                                              : "avx512:conv2d_channel_lanes_int8_nhwc")) == lanes);
          CHECK((implementation(ctx) == "avx512:conv2d_wide_rows_int8") == wide);
        }
      }
  }
}

}  // namespace dlk::cpu_test
