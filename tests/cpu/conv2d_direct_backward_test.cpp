// The AVX-512 tier's direct backward kernels for few channels, and backward
// weights' channel-block kernel for many
// (backends/cpu_avx512/kernels/conv2d_direct_backward_weights_kernels.hpp,
// conv2d_direct_rows_kernels.hpp) on the edges of their rules and of their
// blocking, against the exact sums: the data are small integers, so every
// tier's f32 sums are exact whatever their order, and the result is known bit
// for bit. Each shape runs on every tier and on 1 to 3 threads (the images
// split among them), backward weights with and without diff_bias; each direct
// kernel must run exactly where its rule says.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "tests/cpu/conv2d_exact.hpp"
#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {
namespace {

const ConvShape kShapes[] = {
    // LeNet-5's conv1 (one input channel, pad 2: 25 taps, one chunk of sums)
    // and conv2 (6 x 5 x 5 = 150 taps: six chunks).
    {3, 1, 28, 28, 6, 5, 5, 1, 2, 1, 1},
    {2, 6, 14, 14, 16, 5, 5, 1, 0, 1, 1},
    // 4 output channels (the rule's least) and 28 taps (one whole chunk); 29
    // taps (two chunks) with padding.
    {1, 7, 6, 9, 4, 2, 2, 1, 0, 1, 1},
    {2, 1, 3, 40, 5, 1, 29, 1, 1, 1, 1},
    // 15 channels, stride 2, dilation 2, padding past the kernel's reach.
    {2, 3, 13, 12, 15, 3, 3, 2, 3, 2, 1},
    // kMaxDirectTaps (1024) taps: direct; one more: the GEMM.
    {1, 64, 5, 5, 8, 4, 4, 1, 0, 1, 1},
    {1, 41, 6, 6, 8, 5, 5, 1, 0, 1, 1},
    // Outside the rule: 3 and 17 channels, groups, 1x1.
    {1, 2, 8, 8, 3, 3, 3, 1, 1, 1, 1},
    {1, 2, 8, 8, 17, 3, 3, 1, 1, 1, 1},
    {2, 4, 8, 8, 8, 3, 3, 1, 1, 1, 2},
    {2, 5, 6, 6, 8, 1, 1, 1, 0, 1, 1},
    // Five images on 2 and 3 threads (uneven shares).
    {5, 2, 9, 7, 9, 3, 3, 1, 1, 1, 1},
    // A 1x1 with more output channels than taps: the GEMM's C split by rows
    // among the threads (runs of MR = 14 on AVX-512, 6 on AVX2, 4 scalar).
    {1, 6, 7, 9, 44, 1, 1, 1, 0, 1, 1},
    // Backward data's blocks: 16 channels (two blocks of 8), an odd number of
    // rows (a block of one), rows of 33 (two vectors and a lane); 9 channels
    // (blocks of 4 and 5), padding of the kernel's whole reach with dilation;
    // a 1 x 7 kernel. Outside its rule: stride 2, padding past the reach, 17
    // input channels.
    {1, 16, 7, 33, 16, 3, 3, 1, 1, 1, 1},
    {2, 9, 9, 10, 5, 3, 3, 1, 4, 2, 1},
    {1, 3, 5, 20, 4, 1, 7, 1, 0, 1, 1},
    {1, 4, 9, 9, 8, 3, 3, 2, 1, 1, 1},
    {1, 2, 6, 6, 4, 3, 3, 1, 3, 1, 1},
    {1, 17, 6, 6, 8, 3, 3, 1, 1, 1, 1},
};

}  // namespace

TEST_CASE("conv2d backward weights f32: the direct kernel's edges give the exact sums on 1-3 threads",
          "[cpu][conv2d]") {
  std::mt19937 rng(21);
  for (const std::string &tier : cpu_tiers())
    for (const int threads : {1, 2, 3}) {
      const Context ctx(tier, threads);
      for (const ConvShape &s : kShapes) {
        INFO(tier << " threads " << threads << describe(s));
        const GradientCase k = gradient_case(s, rng);
        const int64_t taps = s.c / s.groups * s.kh * s.kw;
        const bool direct = tier == "avx512" && s.groups == 1 && s.kh * s.kw > 1 && s.k >= 4 &&
                            s.k <= 16 && taps <= 1024;
        for (const bool with_bias : {false, true}) {
          Buffer<float> src(ctx, cast<float>(k.src)), dy(ctx, cast<float>(k.dy));
          Buffer<float> diff_weights(ctx, std::vector<float>(k.weights.size(), NAN));
          Buffer<float> diff_bias(ctx, std::vector<float>(k.diff_bias.size(), NAN));
          REQUIRE(dlk_conv2d_backward_weights(ctx.get(), &k.d, src.data(), dy.data(),
                                              diff_weights.data(),
                                              with_bias ? diff_bias.data() : nullptr) ==
                  DLK_STATUS_SUCCESS);
          CHECK(diff_weights.values() == k.diff_weights);
          if (with_bias) CHECK(diff_bias.values() == k.diff_bias);
          CHECK((implementation(ctx) == "avx512:conv2d_direct_backward_weights_f32") == direct);
        }
      }
    }
}

// The channel-block kernel's edges: 17 channels (one block, a second vector
// of one lane), 32 and 33 (a block of one, a vector), 48 (blocks of 32 and
// 16), 96 (three blocks on 2 threads: the kernel rows shared too); kernel rows
// 15 (chunks of 3 and 4), kw 5 and 7 (ResNet-50's conv1 shape, stride 2, pad
// 3), bands of output rows (ow 20: 12 rows a band, 13 rows), padding past the
// kernel's reach, stride 2, no padding, 128 output pixels (the rule's least)
// and 2 x 81 in the batch, 121; outside its rule also dilation along the
// rows, kw 4, groups. bf16 in pixel pairs (AMD): odd output widths (11, 9,
// and 5, 11 and 15 at stride 2) put a dummy pixel at each row's end, kw 5
// among them. 4 images of 32 x 33 pixels: on 2 threads the threads take
// halves of the batch, their sums added up after.
const ConvShape kChannelBlockShapes[] = {
    {4, 3, 32, 33, 40, 3, 3, 1, 1, 1, 1},
    {1, 3, 9, 13, 40, 5, 5, 1, 1, 1, 1},
    {1, 3, 11, 9, 40, 3, 3, 2, 1, 1, 1},
    {1, 2, 13, 21, 36, 5, 5, 2, 2, 1, 1},
    {1, 2, 12, 12, 17, 3, 3, 1, 1, 1, 1},
    {2, 3, 12, 11, 32, 3, 3, 1, 1, 1, 1},
    {1, 5, 12, 12, 33, 3, 3, 1, 1, 1, 1},
    {2, 4, 24, 23, 48, 3, 3, 2, 1, 1, 1},
    {1, 3, 12, 12, 96, 3, 3, 1, 1, 1, 1},
    {1, 3, 31, 29, 40, 7, 7, 2, 3, 1, 1},
    {1, 2, 12, 12, 20, 5, 5, 1, 2, 1, 1},
    {1, 2, 13, 20, 24, 3, 3, 1, 1, 1, 1},
    {2, 2, 6, 6, 18, 3, 3, 1, 4, 1, 1},
    {1, 4, 27, 25, 64, 3, 3, 2, 0, 1, 1},
    {1, 3, 8, 16, 32, 3, 3, 1, 1, 1, 1},
    {2, 3, 9, 9, 32, 3, 3, 1, 1, 1, 1},
    {1, 3, 11, 11, 32, 3, 3, 1, 1, 1, 1},
    {1, 3, 12, 12, 24, 3, 3, 1, 2, 2, 1},
    {1, 3, 12, 12, 24, 4, 4, 1, 1, 1, 1},
    {1, 4, 12, 12, 40, 3, 3, 1, 1, 1, 2},
};

// f16 and bf16 run widened to f32 (bf16 where vdpbf16ps does not outpace the
// FMAs: Intel; elsewhere in pixel pairs on vdpbf16ps at stride 1), rounded
// once: the exact sums' nearest f16/bf16.
TEST_CASE("conv2d backward weights f32/f16/bf16: the channel-block kernel's edges give the exact sums",
          "[cpu][conv2d]") {
  std::mt19937 rng(23);
  // bf16 takes one of the two ways on a CPU, never both.
  bool pairs_seen = false, widened_seen = false;
  // The data and their exact gradients once a dtype and shape; every tier and
  // thread count reads them.
  for (const dlk_dtype type : {DLK_DTYPE_F32, DLK_DTYPE_BF16, DLK_DTYPE_F16})
    for (const ConvShape &s : kChannelBlockShapes) {
      GradientCase k = gradient_case(s, rng, type == DLK_DTYPE_F16 ? 1 : 3);
      k.d = conv_desc(s, type);
      for (const std::string &tier : cpu_tiers())
        for (const int threads : {1, 2, 3}) {
          const Context ctx(tier, threads);
          INFO(tier << " " << dlk_dtype_name(type) << " threads " << threads << describe(s));
          const bool blocks = tier == "avx512" && !lowers_to_amx(tier, type, s.c, s.groups) &&
                              s.groups == 1 && s.k > 16 &&
                              (s.kw == 3 || s.kw == 5 || s.kw == 7) && s.dilation == 1 &&
                              (type == DLK_DTYPE_BF16 || s.n * k.oh * k.ow >= 128);
          for (const bool with_bias : {false, true}) {
            Buffer<float> diff_bias(ctx, std::vector<float>(k.diff_bias.size(), NAN));
            float *bias = with_bias ? diff_bias.data() : nullptr;
            check_exact_backward_weights(ctx, k.d, k.src, k.dy, k.diff_weights, bias);
            if (with_bias) CHECK(diff_bias.values() == k.diff_bias);
            const std::string name = implementation(ctx);
            const std::string widened = std::string("avx512:channel_blocks_bwd_weights_") +
                                        dlk_dtype_name(type) +
                                        (type == DLK_DTYPE_F32 ? "" : "_as_f32");
            if (type != DLK_DTYPE_BF16 || !blocks) {
              CHECK((name == widened) == blocks);
            } else if (name == widened) {
              CHECK(!pairs_seen);
              widened_seen = true;
            } else {
              CHECK(!widened_seen);
              pairs_seen = true;
              CHECK(name == "avx512:channel_blocks_bwd_weights_bf16");
            }
          }
        }
    }
}

// NHWC with fewer than 16 channels, or up to 256 over at least 28 x 28 output
// pixels, runs the channel-block kernel on the NHWC tensors, src turned
// channel-major as it is padded, diff_dst read where it lies (f32 with k a
// multiple of 16: 32 and 48, the last block one vector) or copied a pixel at
// a time (k 20, 24, 40), the gradient turned from OIHW into OHWI
// (backends/cpu_avx512/conv2d_backward_weights.cpp): ResNet-50's conv1 shape,
// 3 and 15 channels, 20 channels over 30 x 30 pixels, an odd output width
// (bf16's dummy pixel), an unpadded shape, 4 images taken by halves on 2
// threads (8 images of 16 channels over 24 x 24 pixels: the kernel only
// then); 16 and 20 channels over fewer pixels, and 8 output channels (outside
// the kernel's rule), keep the GEMM.
// The shapes past the channel-block kernel's rule include 1x1 ones: one GEMM
// over every pixel of the batch, which with 2048 pixels a thread or more the
// threads split into runs of pixels (across images: 47 x 45 pixels an image)
// into sums of their own, added after (conv2d_backward_weights.cpp,
// kMinPixelsPerThread); groups of their own where there are as many groups as
// threads.
TEST_CASE("conv2d backward weights NHWC f32/f16/bf16: the channel-block kernel on NHWC tensors and the 1x1 GEMM split by pixels, exact sums on 1-3 threads",
          "[cpu][conv2d]") {
  std::mt19937 rng(31);
  const ConvShape shapes[] = {
      ConvShape{1, 3, 31, 29, 40, 7, 7, 2, 3, 1, 1},
      ConvShape{2, 3, 12, 11, 32, 3, 3, 1, 1, 1, 1},
      ConvShape{1, 15, 13, 9, 20, 5, 5, 1, 2, 1, 1},
      ConvShape{1, 20, 30, 30, 24, 3, 3, 1, 1, 1, 1},
      ConvShape{1, 20, 27, 27, 24, 3, 3, 1, 1, 1, 1},
      ConvShape{2, 5, 14, 13, 48, 3, 3, 1, 0, 1, 1},
      ConvShape{1, 6, 23, 21, 32, 3, 3, 2, 1, 1, 1},
      ConvShape{4, 3, 32, 33, 48, 3, 3, 1, 1, 1, 1},
      ConvShape{8, 16, 24, 24, 32, 3, 3, 1, 1, 1, 1},
      ConvShape{1, 16, 10, 10, 24, 3, 3, 1, 1, 1, 1},
      ConvShape{1, 3, 12, 12, 8, 3, 3, 1, 1, 1, 1},
      ConvShape{2, 6, 48, 48, 20, 1, 1, 1, 0, 1, 1},
      ConvShape{3, 5, 47, 45, 18, 1, 1, 1, 0, 1, 1},
      ConvShape{3, 8, 48, 48, 12, 1, 1, 1, 0, 1, 2},
  };
  // The data and their exact gradients once a dtype and shape (they are most
  // of the time under a sanitizer); every tier and thread count reads them.
  for (const dlk_dtype type : {DLK_DTYPE_F32, DLK_DTYPE_BF16, DLK_DTYPE_F16})
    for (const ConvShape &s : shapes) {
      GradientCase k = gradient_case(s, rng, type == DLK_DTYPE_F16 ? 1 : 3);
      k.d = conv_desc(s, type);
      k.d.format = DLK_FORMAT_NHWC;
      const std::vector<int> src = to_nhwc(k.src, s.n, s.c, s.h * s.w);
      const std::vector<int> dy = to_nhwc(k.dy, s.n, s.k, k.oh * k.ow);
      const std::vector<float> expected = to_nhwc(k.diff_weights, s.k, s.c / s.groups, s.kh * s.kw);
      for (const std::string &tier : cpu_tiers())
        for (const int threads : {1, 2, 3}) {
          const Context ctx(tier, threads);
          INFO(tier << " " << dlk_dtype_name(type) << " threads " << threads << describe(s));
          // (The threads split the batch: it divides among them, 2048
          // pixels a thread.)
          const bool by_images = threads > 1 && s.n % threads == 0 &&
                                 s.n * k.oh * k.ow / threads >= 2048;
          const bool channel_blocks =
              tier == "avx512" && !lowers_to_amx(tier, type, s.c, s.groups) && s.k > 16 &&
              (s.kw == 3 || s.kw == 5 || s.kw == 7) &&
              (s.c < 16 || (s.c <= 256 && (k.oh * k.ow >= 28 * 28 || by_images))) &&
              (type == DLK_DTYPE_BF16 || s.n * k.oh * k.ow >= 128);
          for (const bool with_bias : {false, true}) {
            Buffer<float> diff_bias(ctx, std::vector<float>(k.diff_bias.size(), NAN));
            float *bias = with_bias ? diff_bias.data() : nullptr;
            check_exact_backward_weights(ctx, k.d, src, dy, expected, bias);
            if (with_bias) CHECK(diff_bias.values() == k.diff_bias);
            CHECK((implementation(ctx).rfind("avx512:nhwc_channel_blocks_", 0) == 0) ==
                  channel_blocks);
          }
        }
    }
}

// bf16 in pixel pairs: the dummy pixel past an odd output row reads input
// columns that no pixel multiplies at that tap (stride 1: column ow at tap 0;
// stride 2: the last column, which no tap reads); an infinity there must not
// turn into a NaN (0 x inf) in the tap's gradient.
TEST_CASE("conv2d backward weights bf16: an odd row's dummy pixel leaves the infinities it reads out",
          "[cpu][conv2d]") {
  for (const ConvShape &s :
       {ConvShape{1, 2, 6, 7, 32, 3, 3, 1, 0, 1, 1}, ConvShape{1, 2, 7, 12, 32, 3, 3, 2, 0, 1, 1}})
    for (const std::string &tier : cpu_tiers()) {
      INFO(tier << describe(s));
      const Context ctx(tier, 1);
      const dlk_conv2d_desc d = conv_desc(s, DLK_DTYPE_BF16);
      const int64_t oh = (s.h - s.kh) / s.stride + 1, ow = (s.w - s.kw) / s.stride + 1;
      std::vector<float> x(static_cast<size_t>(s.c * s.h * s.w), 1.0f);
      const int64_t column = ow * s.stride + s.stride - 1;
      for (int64_t y = 0; y < s.h; ++y) x[static_cast<size_t>((s.c - 1) * s.h * s.w + y * s.w + column)] = INFINITY;
      std::vector<uint16_t> src_bits, dy_bits(static_cast<size_t>(s.k * oh * ow), bf16_bits(1.0f)),
          expected;
      for (const float v : x) src_bits.push_back(bf16_bits(v));
      for (int64_t o = 0; o < s.k; ++o)
        for (int64_t ci = 0; ci < s.c; ++ci)
          for (int64_t r = 0; r < s.kh; ++r)
            for (int64_t t = 0; t < s.kw; ++t) {
              float sum = 0;
              for (int64_t oy = 0; oy < oh; ++oy)
                for (int64_t ox = 0; ox < ow; ++ox)
                  sum += x[static_cast<size_t>((ci * s.h + oy * s.stride + r) * s.w + ox * s.stride + t)];
              expected.push_back(bf16_bits(sum));
            }
      Buffer<uint16_t> src(ctx, src_bits), dy(ctx, dy_bits);
      Buffer<uint16_t> diff_weights(ctx, std::vector<uint16_t>(expected.size(), 0xffff));
      REQUIRE(dlk_conv2d_backward_weights(ctx.get(), &d, src.data(), dy.data(), diff_weights.data(),
                                          nullptr) == DLK_STATUS_SUCCESS);
      CHECK(diff_weights.values() == expected);
    }
}

TEST_CASE("conv2d backward data f32: the direct kernel's edges give the exact sums on 1-3 threads",
          "[cpu][conv2d]") {
  std::mt19937 rng(22);
  for (const std::string &tier : cpu_tiers())
    for (const int threads : {1, 2, 3}) {
      const Context ctx(tier, threads);
      for (const ConvShape &s : kShapes) {
        INFO(tier << " threads " << threads << describe(s));
        const GradientCase k = gradient_case(s, rng);
        const bool direct = tier == "avx512" && s.groups == 1 && s.stride == 1 &&
                            s.kh * s.kw > 1 && s.c <= 16 && s.k <= 16 &&
                            s.pad <= (std::min(s.kh, s.kw) - 1) * s.dilation;
        Buffer<float> weights(ctx, cast<float>(k.weights)), dy(ctx, cast<float>(k.dy));
        Buffer<float> diff_src(ctx, std::vector<float>(k.src.size(), NAN));
        REQUIRE(dlk_conv2d_backward_data(ctx.get(), &k.d, dy.data(), weights.data(),
                                         diff_src.data()) == DLK_STATUS_SUCCESS);
        CHECK(diff_src.values() == k.diff_src);
        CHECK((implementation(ctx) == "avx512:conv2d_direct_backward_data_f32") == direct);
      }
    }
}

// bf16 through the GEMM (shapes outside the direct kernels' rules): the f32
// sums are rounded once into diff_weights, on the AVX-512 tier by a vector
// kernel, each thread its own columns (backends/cpu_avx512/float_storage.hpp,
// store_run). Integers up to 16 (exact in bf16) summed over 60-144 pixels
// pass 256, so many sums round, ties to even; a NaN channel of src and an
// infinite one must come out as NaN and infinity. Rows of 37 and 54 taps end
// in partial vectors; 40 output channels of 5 taps split C by rows.
TEST_CASE("conv2d backward weights bf16 through the GEMM: f32 sums rounded once, ties to even, NaN and infinity kept, 1-3 threads",
          "[cpu][conv2d]") {
  std::mt19937 rng(29);
  for (const ConvShape &s : {ConvShape{2, 37, 6, 5, 5, 1, 1, 1, 0, 1, 1},
                             ConvShape{1, 5, 12, 10, 40, 1, 1, 1, 0, 1, 1},
                             ConvShape{1, 6, 12, 12, 12, 3, 3, 1, 1, 1, 1},
                             ConvShape{1, 8, 10, 9, 20, 3, 3, 1, 1, 1, 2}})
    for (const std::string &tier : cpu_tiers())
      for (const int threads : {1, 2, 3})
        for (const bool special : {false, true}) {
          INFO(tier << " threads " << threads << describe(s) << (special ? " NaN and infinity" : ""));
          const Context ctx(tier, threads);
          GradientCase k = gradient_case(s, rng, 16);
          k.d = conv_desc(s, DLK_DTYPE_BF16);
          const int64_t cg = s.c / s.groups, plane = s.h * s.w;
          std::vector<float> x = cast<float>(k.src);
          if (special) {  // diff_dst all 1: channel 0 of src NaN, channel 1 +infinity
            std::fill(k.dy.begin(), k.dy.end(), 1);
            for (int64_t i = 0; i < s.n; ++i)
              for (int64_t p = 0; p < plane; ++p) {
                x[static_cast<size_t>(i * s.c * plane + p)] = NAN;
                x[static_cast<size_t>((i * s.c + 1) * plane + p)] = INFINITY;
              }
          }
          std::vector<uint16_t> src_bits, dy_bits;
          for (const float v : x) src_bits.push_back(bf16_bits(v));
          for (const int v : k.dy) dy_bits.push_back(bf16_bits(static_cast<float>(v)));
          Buffer<uint16_t> src(ctx, src_bits), dy(ctx, dy_bits);
          Buffer<uint16_t> diff_weights(ctx, std::vector<uint16_t>(k.weights.size(), 0xffff));
          REQUIRE(dlk_conv2d_backward_weights(ctx.get(), &k.d, src.data(), dy.data(),
                                              diff_weights.data(), nullptr) == DLK_STATUS_SUCCESS);
          CHECK(implementation(ctx).rfind("avx512:", 0) != 0);
          const std::vector<uint16_t> got = diff_weights.values();
          const int64_t taps = cg * s.kh * s.kw;
          for (size_t e = 0; e < got.size(); ++e) {
            const int64_t ci = static_cast<int64_t>(e) % taps / (s.kh * s.kw);
            INFO("weight " << e);
            if (!special) {
              CHECK(got[e] == bf16_bits(k.diff_weights[e]));
            } else if (s.groups == 1 && ci == 0) {
              CHECK((got[e] & 0x7fc0) == 0x7fc0);  // a quiet NaN
              CHECK((got[e] & 0x3f) == 0);
            } else if (s.groups == 1 && ci == 1) {
              CHECK(got[e] == 0x7f80);
            }
          }
        }
}

}  // namespace dlk::cpu_test
