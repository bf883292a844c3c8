// Convolution backward data on exact data, every tier, 1-3 threads, f32, and
// f16/bf16 rounded once: diff_src must be the exact sums of diff_dst times the weights over every tap that
// reads each src element. f32 NCHW at stride 1 runs on the AVX-512 tier's
// wide-row kernel as the convolution of diff_dst with the weights turned
// around (backends/cpu_avx512/conv2d_backward_data.cpp), so the shapes here
// sit on that kernel's edges: turned output channels (c) one below and above
// its panels of 8 and the rule's 16, turned input channels (k) one below and
// above the rule's 4 and in several blocks of channels, wide columns one
// above a tile of 48, padding from 0 to the kernel's reach (turned padding
// kh - 1 - pad) and past it (which keeps col2im), padded widths about the
// rule's 1.1 x w, non-square kernels, and
// the shapes the rule leaves to col2im (stride, dilation, groups). (At most
// 16 channels and 16 output channels in f32 go to the direct kernel of
// kernels/conv2d_direct_rows_kernels.hpp first: none here.) f32, and bf16 in
// k-pairs (AMD), with 128 or more pixels of diff_src and 64 or more turned
// taps (k x kh x kw, bf16's in pairs) run the channel-lane kernel instead
// (kernels/conv2d_channel_lanes_kernels.hpp), so the comments' "col2im" and
// "wide-row" are f16's (and Intel's bf16) there; its own edges close the
// list: turned output channels one above a block of 32 and one above 16,
// widths one above its tile of 14 and of 7, no padding (turned padding 2),
// dilation 2, several images per thread. Both lists are followed by
// kStride2Shapes, the edges of its stride-2 phases.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/cpu/conv2d_exact.hpp"
#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {
namespace {

const ConvShape kShapes[] = {
    {1, 17, 1, 47, 5, 3, 3, 1, 1, 1, 1},   // 1 x 49 wide columns: a tile of 48 and one
    {3, 17, 3, 15, 4, 3, 3, 1, 1, 1, 1},   // 17 / 15 wide: col2im
    {3, 17, 3, 20, 4, 3, 3, 1, 1, 1, 1},   // k = 4 (the rule's least), 3 images, 22 / 20 wide
    {1, 16, 4, 20, 17, 3, 3, 1, 1, 1, 1},  // c = 16 (the rule's least)
    {1, 17, 8, 20, 3, 3, 3, 1, 1, 1, 1},   // k = 3: col2im
    {2, 25, 5, 20, 90, 3, 3, 1, 1, 1, 1},  // 90 turned input channels: 3 blocks
    {1, 15, 11, 11, 51, 3, 3, 1, 1, 1, 1},  // c = 15: col2im
    {2, 24, 9, 20, 6, 3, 3, 1, 0, 1, 1},   // no padding: turned padding 2
    {1, 23, 9, 20, 6, 3, 3, 1, 2, 1, 1},   // padding 2: turned padding 0
    {1, 24, 9, 20, 6, 3, 3, 1, 3, 1, 1},   // padding past the kernel: col2im
    {1, 17, 12, 40, 7, 5, 5, 1, 2, 1, 1},
    {2, 32, 6, 40, 8, 1, 3, 1, 0, 1, 1},
    {1, 24, 14, 14, 8, 3, 1, 1, 1, 1, 1},  // pad_w past kw - 1 = 0: col2im
    {1, 40, 16, 16, 20, 3, 3, 1, 1, 1, 1},  // 18 / 16 wide: col2im
    {1, 40, 16, 30, 20, 3, 3, 1, 1, 1, 1},
    {1, 32, 9, 19, 8, 3, 3, 2, 1, 1, 1},   // stride 2: col2im
    {1, 32, 9, 19, 8, 3, 3, 1, 2, 2, 1},   // dilation 2: col2im
    {1, 32, 9, 19, 8, 3, 3, 1, 1, 1, 2},   // groups: col2im
    {1, 33, 12, 15, 8, 3, 3, 1, 1, 1, 1},
    {2, 17, 8, 13, 24, 3, 3, 1, 0, 1, 1},
    {1, 32, 16, 16, 8, 3, 3, 1, 2, 2, 1},
    {3, 16, 7, 7, 64, 3, 3, 1, 1, 1, 1},
};


// NHWC through GEMM and col2im (where the channel-lane rule does not take
// it): with fewer images (x groups) than threads, the threads take slabs of the image rows, each computing the output rows
// that reach its slab, where a slab has at least 4 x the rows computed twice
// ((kh - 1) x dilation / stride) per thread, else they share each GEMM and
// split col2im by channels (conv2d_backward_data.cpp). Shapes either side of
// that, slabs of one row, padding past the kernel, stride and dilation, a
// stride that skips rows, and batches below and at the thread count.
const ConvShape kNhwcShapes[] = {
    {1, 24, 26, 7, 20, 3, 3, 1, 1, 1, 1},  // 26 rows: slabs on 2 and 3 threads
    {1, 24, 9, 11, 20, 3, 3, 1, 1, 1, 1},  // 9 rows: shared
    {1, 20, 3, 7, 9, 1, 3, 1, 0, 1, 1},    // a 1-row kernel: slabs of 1 row
    {1, 17, 1, 9, 5, 1, 3, 1, 0, 1, 1},    // 1 row
    {1, 19, 40, 6, 7, 5, 3, 1, 2, 1, 1},   // a 5-row kernel: slabs on 2 threads, shared on 3
    {1, 16, 40, 8, 12, 3, 3, 2, 1, 1, 1},  // stride 2
    {1, 16, 40, 8, 12, 2, 2, 3, 0, 1, 1},  // 2x2/3: rows no output reaches
    {1, 18, 34, 5, 10, 3, 3, 1, 2, 2, 1},  // dilation 2
    {1, 12, 20, 6, 8, 3, 3, 1, 3, 1, 1},   // padding past the kernel's reach
    {2, 16, 24, 7, 10, 3, 3, 1, 1, 1, 1},  // 2 images: slabs on 3 threads, whole on 2
    {1, 16, 24, 7, 12, 3, 3, 1, 1, 1, 2},  // 2 groups
    // f32 on the channel-lane kernel (the rule in channel_lanes_rule): 33
    // channels (a second block of one), a width one above its tile of 14,
    // dilation 2, several images per thread, no padding (turned padding 2).
    {1, 33, 12, 15, 8, 3, 3, 1, 1, 1, 1},
    {1, 32, 16, 16, 8, 3, 3, 1, 2, 2, 1},
    {3, 16, 7, 7, 64, 3, 3, 1, 1, 1, 1},
    {2, 17, 8, 13, 24, 3, 3, 1, 0, 1, 1},
    // bf16 NHWC in k-pairs: 16 output channels (8 pairs, 72 taps) and a second
    // block of one; 25 output channels, odd: the last pair's second zero.
    {1, 33, 10, 15, 16, 3, 3, 1, 1, 1, 1},
    {1, 20, 12, 15, 25, 3, 3, 1, 1, 1, 1},
    // NHWC's floor: 5 output channels, 45 turned taps (bf16 27 in pairs).
    {1, 24, 12, 14, 5, 3, 3, 1, 1, 1, 1},
};

// The channel-lane kernel's rule on the turned convolution
// (kernels/conv2d_channel_lanes_kernels.hpp), first where it holds: f32, and
// bf16 in k-pairs (AMD with AVX512_BF16); stride 1, or 2 in
// phases (no dilation, kh and kw 2 or more); one group, padding within the
// kernel's reach, 16 or more channels, 128 or more pixels of diff_src and 64
// or more turned taps (NHWC 16; in pairs for bf16; at stride 2 a phase's,
// a quarter of all on average; 512 pixels past 4096 taps: none here).
bool channel_lanes_rule(const std::string &tier, dlk_dtype type, dlk_format format,
                        const ConvShape &s) {
  const bool pairs = type == DLK_DTYPE_BF16 && __builtin_cpu_supports("avx512bf16") &&
                     __builtin_cpu_is("amd");
  const int64_t units = pairs ? (s.k + 1) / 2 : s.k;
  const bool phased = s.stride == 2 && s.dilation == 1 && s.kh >= 2 && s.kw >= 2;
  return tier == "avx512" && (type == DLK_DTYPE_F32 || pairs) && (s.stride == 1 || phased) &&
         s.groups == 1 && s.pad <= (s.kh - 1) * s.dilation && s.pad <= (s.kw - 1) * s.dilation &&
         s.c >= 16 && s.n * s.h * s.w / (phased ? 4 : 1) >= 128 &&
         units * s.kh * s.kw / (phased ? 4 : 1) >=
             (format == DLK_FORMAT_NHWC ? 16 : 64);
}

// Stride 2 on the channel-lane kernel in phases (both lists): even and odd
// sizes, padding 0, 1 and kh - 1 (and past it: col2im), 2x2, 3x3, 5x5 and
// 3x2 kernels (phases of 1-3 taps a side), 33 channels (a second block of
// one), phases of 15 columns (one above a tile), several images per thread,
// a width of 37 (19 even columns: the interleaving of bf16 NCHW's phases in
// two steps, the last column alone); dilation 2 keeps col2im.
const ConvShape kStride2Shapes[] = {
    {1, 33, 18, 29, 64, 3, 3, 2, 1, 1, 1},  {2, 20, 17, 16, 64, 3, 3, 2, 0, 1, 1},
    {1, 16, 18, 30, 128, 2, 2, 2, 0, 1, 1}, {1, 17, 23, 23, 60, 5, 5, 2, 2, 1, 1},
    {1, 24, 20, 26, 64, 3, 3, 2, 2, 1, 1},  {1, 24, 20, 26, 64, 3, 3, 2, 3, 1, 1},
    {3, 32, 12, 15, 96, 3, 2, 2, 1, 1, 1},  {1, 24, 20, 26, 64, 3, 3, 2, 1, 2, 1},
    {1, 16, 14, 37, 64, 3, 3, 2, 1, 1, 1},
};

// A list of shapes followed by kStride2Shapes.
template <size_t N>
std::vector<ConvShape> with_stride2(const ConvShape (&shapes)[N]) {
  std::vector<ConvShape> all(shapes, shapes + N);
  all.insert(all.end(), std::begin(kStride2Shapes), std::end(kStride2Shapes));
  return all;
}

// Whether the stride-2 phases of one dimension (kernel, padding, diff_src's
// extent) all have taps and outputs and read diff_dst from the same first
// row: the phase of parity q takes the taps r with q + pad - r even, its
// output i reading row i + (q + pad - r) / 2.
bool phases_read_alike(int64_t kernel, int64_t pad, int64_t extent) {
  int64_t first[2] = {INT64_MAX, INT64_MAX};
  for (int q = 0; q < 2; ++q)
    for (int64_t r = 0; r < kernel; ++r)
      if ((q + pad - r) % 2 == 0) first[q] = std::min(first[q], (q + pad - r) / 2);
  return extent >= 2 && first[0] != INT64_MAX && first[0] == first[1];
}

}  // namespace

TEST_CASE("conv2d backward data NHWC f32/bf16: exact sums with the image rows or channels split among 1-3 threads",
          "[cpu][conv2d]") {
  std::mt19937 rng(12);
  for (const std::string &tier : cpu_tiers())
    for (const int threads : {1, 2, 3}) {
      const Context ctx(tier, threads);
      for (const dlk_dtype type : {DLK_DTYPE_F32, DLK_DTYPE_BF16})
        for (const ConvShape &s : with_stride2(kNhwcShapes)) {
          dlk_conv2d_desc d = conv_desc(s, type);
          d.format = DLK_FORMAT_NHWC;
          int64_t oh = 0, ow = 0;
          REQUIRE(dlk_conv2d_output_shape(&d, &oh, &ow) == DLK_STATUS_SUCCESS);
          INFO(tier << " " << dlk_dtype_name(type) << " threads " << threads << describe(s));
          const std::vector<int> diff_dst = random_ints(d.n * d.k * oh * ow, -3, 3, rng);
          const std::vector<int> weights = random_ints(d.k * d.c / d.groups * d.kh * d.kw, -3, 3, rng);
          check_exact_backward_data(
              ctx, d, to_nhwc(diff_dst, d.n, d.k, oh * ow),
              to_nhwc(weights, d.k, d.c / d.groups, d.kh * d.kw),
              to_nhwc(exact_backward_data(d, oh, ow, diff_dst, weights), d.n, d.c, d.h * d.w));
          const bool lanes = channel_lanes_rule(tier, type, DLK_FORMAT_NHWC, s);
          // bf16 on AMX: the turned convolution on its kernel (conv2d_amx_test.cpp).
          const bool amx = lowers_to_amx(tier, type, s.c, s.groups) && s.stride == 1 &&
                           s.dilation == 1 && s.k % 32 == 0 && s.pad < s.kh && s.pad < s.kw &&
                           2 * s.n * s.h * s.w >= s.c;
          // At stride 2, in phases on it (conv2d_backward_data_amx_phases.hpp).
          const bool phases = lowers_to_amx(tier, type, s.c, s.groups) && s.stride == 2 &&
                              s.dilation == 1 && s.groups == 1 && s.k % 32 == 0 &&
                              phases_read_alike(s.kh, s.pad, s.h) &&
                              phases_read_alike(s.kw, s.pad, s.w) &&
                              2 * s.n * s.h * s.w >= s.c;
          CHECK(implementation(ctx).rfind(
                    amx      ? std::string("turned:avx512:conv2d_amx_bf16_nhwc")
                    : phases ? std::string("phases:avx512:conv2d_amx_bf16_nhwc")
                    : lanes  ? std::string("turned:avx512:channel_lanes_") +
                                  dlk_dtype_name(type) + "_nhwc"
                             : "gemm+col2im:",
                    0) == 0);
        }
    }
}

TEST_CASE("conv2d backward data f32/f16/bf16: exact sums on the wide-row kernel's edges, 1-3 threads",
          "[cpu][conv2d]") {
  std::mt19937 rng(11);
  for (const std::string &tier : cpu_tiers())
    for (const int threads : {1, 2, 3}) {
      const Context ctx(tier, threads);
      for (const dlk_dtype type : {DLK_DTYPE_F32, DLK_DTYPE_BF16, DLK_DTYPE_F16})
        for (const ConvShape &s : with_stride2(kShapes)) {
          dlk_conv2d_desc d = conv_desc(s, type);
          int64_t oh = 0, ow = 0;
          REQUIRE(dlk_conv2d_output_shape(&d, &oh, &ow) == DLK_STATUS_SUCCESS);
          INFO(tier << " " << dlk_dtype_name(type) << " threads " << threads << describe(s));
          // f16: sums below 2048, which it holds exactly.
          const int range = type == DLK_DTYPE_F16 ? 1 : 3;
          const std::vector<int> diff_dst = random_ints(d.n * d.k * oh * ow, -range, range, rng);
          const std::vector<int> weights =
              random_ints(d.k * d.c / d.groups * d.kh * d.kw, -range, range, rng);
          check_exact_backward_data(ctx, d, diff_dst, weights,
                                    exact_backward_data(d, oh, ow, diff_dst, weights));
          // The rule (kernels/conv2d_direct_kernels.hpp on the turned
          // convolution): stride 1, no dilation, one group, 16 or more
          // channels (its outputs) and 4 or more output channels (its
          // inputs), padding within the kernel's reach, padded width at most
          // 1.1 x w; bf16 widened where vdpbf16ps does not outpace the FMAs
          // (Intel), else in k-pairs on vdpbf16ps.
          const bool lanes = channel_lanes_rule(tier, type, DLK_FORMAT_NCHW, s);
          const bool wide = !lanes && tier == "avx512" && s.stride == 1 && s.dilation == 1 &&
                            s.groups == 1 && s.c >= 16 && s.k >= 4 && s.pad <= s.kh - 1 &&
                            s.pad <= s.kw - 1 && (s.w + s.kw - 1) * 10 <= s.w * 11;
          const std::string name = implementation(ctx);
          if (lowers_to_amx(tier, type, s.c, s.groups)) {  // the GEMM or conv2d_amx
            CHECK(name.find("amx") != std::string::npos);
            continue;
          }
          CHECK((name == std::string("turned:avx512:channel_lanes_") +
                             dlk_dtype_name(type)) == lanes);
          const std::string widened =
              std::string("turned:avx512:wide_rows_") + dlk_dtype_name(type) +
              (type == DLK_DTYPE_F32 ? "" : "_as_f32");
          if (type != DLK_DTYPE_BF16 || !wide) CHECK((name == widened) == wide);
          else CHECK((name == widened || name == "turned:avx512:wide_rows_bf16"));
        }
    }
}

// 1x1 NCHW without padding: the pixel-major GEMM straight into diff_src's
// channel planes (at stride 2 through a compact image) from 512 pixels of
// diff_dst's grid, and for bf16 in k-pairs (AMD) from 128 where diff_src has
// more channels than diff_dst; below that bf16 in k-pairs of one image
// pixel-major into the scratch, turned into the planes; else the GEMM and
// col2im (pointwise_route in conv2d_backward_data.cpp): 196 pixels widening
// and narrowing, 49 of one and two images, stride 2 onto a 196-pixel grid
// widening and narrowing, 576.
const ConvShape kPointwiseShapes[] = {
    {1, 64, 14, 14, 32, 1, 1, 1, 0, 1, 1}, {1, 32, 14, 14, 64, 1, 1, 1, 0, 1, 1},
    {1, 64, 7, 7, 32, 1, 1, 1, 0, 1, 1},   {2, 64, 7, 7, 32, 1, 1, 1, 0, 1, 1},
    {1, 64, 28, 28, 32, 1, 1, 2, 0, 1, 1}, {1, 32, 28, 28, 64, 1, 1, 2, 0, 1, 1},
    {2, 48, 24, 24, 16, 1, 1, 1, 0, 1, 1},
};

TEST_CASE("conv2d backward data NCHW 1x1: exact on the pixel-major GEMM or col2im's route, "
          "1-2 threads",
          "[cpu][conv2d]") {
  std::mt19937 rng(13);
  for (const std::string &tier : cpu_tiers())
    for (const int threads : {1, 2}) {
      const Context ctx(tier, threads);
      for (const dlk_dtype type : {DLK_DTYPE_F32, DLK_DTYPE_BF16})
        for (const ConvShape &s : kPointwiseShapes) {
          const dlk_conv2d_desc d = conv_desc(s, type);
          int64_t oh = 0, ow = 0;
          REQUIRE(dlk_conv2d_output_shape(&d, &oh, &ow) == DLK_STATUS_SUCCESS);
          INFO(tier << " " << dlk_dtype_name(type) << " threads " << threads << describe(s));
          const std::vector<int> diff_dst = random_ints(d.n * d.k * oh * ow, -3, 3, rng);
          const std::vector<int> weights = random_ints(d.k * d.c, -3, 3, rng);
          check_exact_backward_data(ctx, d, diff_dst, weights,
                                    exact_backward_data(d, oh, ow, diff_dst, weights));
          if (lowers_to_amx(tier, type, s.c, s.groups)) continue;  // conv2d_amx_test.cpp
          const bool pairs = tier == "avx512" && type == DLK_DTYPE_BF16 &&
                             __builtin_cpu_supports("avx512bf16") && __builtin_cpu_is("amd");
          const bool pointwise =
              oh * ow >= 512 || (pairs && ((oh * ow >= 128 && s.c > s.k) || s.n == 1));
          CHECK(implementation(ctx).rfind(pointwise ? "gemm:" : "gemm+col2im:", 0) == 0);
        }
    }
}

}  // namespace dlk::cpu_test
