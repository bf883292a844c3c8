// Grouped convolutions on exact data, every tier, 1-3 threads: each image's
// groups run as convolutions of their own (backends/cpu_avx512/
// conv2d_group_views.hpp), on the channel-lane kernel from 16 channels a group
// (NHWC through compact copies of a group's channels) and on the wide-row
// kernel below that (NCHW), forward and backward data, and the weight
// gradient of groups on the direct and channel-block kernels; the shapes sit on both
// sides of each rule, and every image and group must read its own planes,
// weights, bias and scales.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/numeric.hpp"
#include "tests/cpu/conv2d_exact.hpp"
#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {
namespace {

// A grouped shape and the f32 route it takes on the AVX-512 tier in NCHW and
// in NHWC: "lanes" (the channel-lane kernel a group at a time), "rows" (the
// wide-row kernel so), or "" (neither).
struct GroupedShape {
  ConvShape shape;
  std::string nchw, nhwc;
};

dlk_conv2d_desc grouped_desc(const ConvShape &s, dlk_format format, dlk_dtype src,
                             dlk_dtype dst) {
  dlk_conv2d_desc d = conv_desc(s, src);
  d.format = format;
  d.weights_type = src == DLK_DTYPE_U8 ? DLK_DTYPE_S8 : src;
  d.dst_type = dst;
  return d;
}

}  // namespace

// Forward (conv2d_im2col.cpp): the channel-lane kernel where
// channel_lanes_groups_apply (16 or more output channels a group, 64 taps
// (NHWC 16), 48 pixels): groups of 16 and of 17 output channels (a vector and
// one lane), of 32 over the floor of 48 pixels (49), and its declines (47
// pixels; 15 channels a group, whose padded rows 10 / 8 wide pass the wide-row
// rule's 1.2). The wide-row kernel where wide_rows_groups_apply (NCHW, 4 to 15
// output channels and 4 or more input channels a group): groups of 4 x 4, of
// 8 x 8 at stride 1 and 2 (four phase tiles), of 4 input and 9 output channels
// (a tile of 8 rows and one of 1); its declines: 3 output channels a group.
// f32 with bias and ReLU, bf16 rounded once, int8 u8 src into u8 dst with a
// scale per channel, bias, ReLU and zero points; 1-3 threads.
TEST_CASE("conv2d forward with groups: each image's groups on the channel-lane or wide-row "
          "kernel, exact sums, f32, bf16 and int8 into u8, NCHW and NHWC, 1-3 threads",
          "[cpu][conv2d]") {
  const GroupedShape shapes[] = {
      {{2, 32, 9, 10, 32, 3, 3, 1, 1, 1, 2}, "lanes", "lanes"},
      {{3, 48, 8, 7, 51, 3, 3, 1, 1, 1, 3}, "lanes", "lanes"},
      {{2, 64, 7, 7, 64, 3, 3, 1, 1, 1, 2}, "lanes", "lanes"},
      {{1, 64, 1, 47, 64, 3, 3, 1, 1, 1, 2}, "", ""},
      {{1, 30, 8, 8, 30, 3, 3, 1, 1, 1, 2}, "", ""},
      {{2, 32, 9, 10, 32, 3, 3, 1, 1, 1, 8}, "rows", "rows"},
      {{1, 40, 7, 12, 40, 3, 3, 1, 1, 1, 5}, "rows", "rows"},
      {{1, 32, 28, 28, 32, 3, 3, 2, 1, 1, 4}, "rows", "rows"},
      {{2, 20, 9, 12, 45, 3, 3, 1, 1, 1, 5}, "rows", "rows"},
      {{1, 24, 9, 10, 12, 3, 3, 1, 1, 1, 4}, "", ""},
  };
  std::mt19937 rng(12);
  for (const GroupedShape &g : shapes)
    for (const dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC}) {
      const ConvShape &s = g.shape;
      const bool nhwc = format == DLK_FORMAT_NHWC;
      const dlk_conv2d_desc d32 = grouped_desc(s, format, DLK_DTYPE_F32, DLK_DTYPE_F32);
      int64_t oh = 0, ow = 0;
      REQUIRE(dlk_conv2d_output_shape(&d32, &oh, &ow) == DLK_STATUS_SUCCESS);
      const int64_t cg = s.c / s.groups, plane = oh * ow;
      const std::vector<int> src = random_ints(s.n * s.c * s.h * s.w, 0, 6, rng);
      const std::vector<int> weights = random_ints(s.k * cg * s.kh * s.kw, -3, 3, rng);
      const std::vector<float> bias = cast<float>(random_ints(s.k, -40, 40, rng));
      const std::vector<int64_t> sums = exact_forward(d32, oh, ow, src, weights, 0);
      const auto channel = [&](size_t e) {
        const auto at = static_cast<int64_t>(e);
        return static_cast<size_t>(nhwc ? at % s.k : at / plane % s.k);
      };
      std::vector<float> scales;
      for (int64_t o = 0; o < s.k; ++o) scales.push_back(0.25f * static_cast<float>(1 + o % 5));
      const std::string &route = nhwc ? g.nhwc : g.nchw;
      const std::string layout = nhwc ? "_nhwc" : "";
      for (const std::string &tier : cpu_tiers())
        for (const int threads : {1, 2, 3}) {
          INFO(tier << " threads " << threads << describe(s) << (nhwc ? " nhwc" : " nchw"));
          const Context ctx(tier, threads);
          const bool avx512 = tier == "avx512";
          dlk_conv2d_desc d = d32;
          d.relu = 1;
          Buffer<float> src32(ctx, cast<float>(src)), weights32(ctx, cast<float>(weights));
          Buffer<float> bias_buf(ctx, bias);
          Buffer<float> dst32(ctx, std::vector<float>(sums.size(), -1.0f));
          REQUIRE(dlk_conv2d_forward(ctx.get(), &d, src32.data(), weights32.data(),
                                     bias_buf.data(), dst32.data()) == DLK_STATUS_SUCCESS);
          std::vector<float> expected32;
          for (size_t e = 0; e < sums.size(); ++e)
            expected32.push_back(std::max(0.0f, static_cast<float>(sums[e]) + bias[channel(e)]));
          CHECK(dst32.values() == expected32);
          CHECK((implementation(ctx) == "avx512:conv2d_channel_lanes_f32" + layout + ":groups") ==
                (avx512 && route == "lanes"));
          CHECK((implementation(ctx) == "avx512:conv2d_wide_rows_f32:groups") ==
                (avx512 && route == "rows"));

          const dlk_conv2d_desc bf16 = grouped_desc(s, format, DLK_DTYPE_BF16, DLK_DTYPE_BF16);
          Buffer<uint16_t> src16(ctx, to_bf16(src)), weights16(ctx, to_bf16(weights));
          Buffer<uint16_t> dst16(ctx, std::vector<uint16_t>(sums.size(), 0xffff));
          REQUIRE(dlk_conv2d_forward(ctx.get(), &bf16, src16.data(), weights16.data(), nullptr,
                                     dst16.data()) == DLK_STATUS_SUCCESS);
          std::vector<uint16_t> expected16;
          for (const int64_t v : sums) expected16.push_back(bf16_bits(static_cast<float>(v)));
          CHECK(dst16.values() == expected16);

          dlk_conv2d_desc int8 = grouped_desc(s, format, DLK_DTYPE_U8, DLK_DTYPE_U8);
          int8.relu = 1;
          int8.dst_zero_point = 7;
          int8.scale_mode = DLK_SCALE_PER_CHANNEL;
          int8.scales = scales.data();
          Buffer<uint8_t> src8(ctx, cast<uint8_t>(src));
          Buffer<int8_t> weights8(ctx, cast<int8_t>(weights));
          Buffer<uint8_t> dst8(ctx, std::vector<uint8_t>(sums.size(), 0xa5));
          REQUIRE(dlk_conv2d_forward(ctx.get(), &int8, src8.data(), weights8.data(),
                                     bias_buf.data(), dst8.data()) == DLK_STATUS_SUCCESS);
          std::vector<uint8_t> expected8;
          for (size_t e = 0; e < sums.size(); ++e) {
            const size_t o = channel(e);
            const float v = std::max(0.0f, static_cast<float>(sums[e]) * scales[o] + bias[o]);
            expected8.push_back(static_cast<uint8_t>(core::requantize(v, 7, 0, 255)));
          }
          CHECK(dst8.values() == expected8);
          if (avx512 && route == "rows" && __builtin_cpu_supports("avx512vnni"))
            CHECK(implementation(ctx) == "avx512:conv2d_wide_rows_int8:groups");
        }
    }
}

// Backward data (conv2d_backward_data.cpp): each image's groups' turned
// convolutions on the channel-lane kernel where runs_channel_lanes_groups
// (turned output channels, c/groups, of 16 and 32, turned input channels,
// k/groups, of 16, 17 and 32, 49 and 56 pixels of diff_src over the floor of
// 48, stride 2 in phases, 36 taps a phase over their floor of 16, NHWC
// declined below 128 pixels a phase; declined at 47 pixels and 15 channels a
// group), or on the wide-row kernel where
// runs_wide_rows_groups (NCHW, stride 1, fewer than 16 turned output
// channels: groups of 4 x 4, of 8 into 16; declined where the padded rows, 12
// / 10, pass the turned rule's 1.1), or at stride 2 in phases on the wide-row
// kernel where backward_data_wide_rows_phases_apply (4 to 16 channels a group
// each way: groups of 4 x 4, 8 x 8 over 2 images of odd height and width,
// whose phases differ in size, 16 x 16 below the channel-lane kernel's
// pixels, 16 into 8; declined without padding, whose phases read diff_dst from
// different rows, and at 3 channels a group). f32 and bf16 rounded once, with
// the route checked, NCHW and NHWC, 1-3 threads.
TEST_CASE("conv2d backward data with groups: each image's groups on the channel-lane or "
          "wide-row kernel, exact, f32 and bf16, NCHW and NHWC, 1-3 threads",
          "[cpu][conv2d]") {
  const GroupedShape shapes[] = {
      {{2, 32, 9, 10, 32, 3, 3, 1, 1, 1, 2}, "lanes", "lanes"},
      {{3, 48, 8, 7, 51, 3, 3, 1, 1, 1, 3}, "lanes", "lanes"},
      {{2, 64, 7, 7, 64, 3, 3, 1, 1, 1, 2}, "lanes", "lanes"},
      {{1, 64, 14, 14, 64, 3, 3, 2, 1, 1, 2}, "lanes", ""},
      {{1, 64, 1, 47, 64, 3, 3, 1, 1, 1, 2}, "", ""},
      {{1, 30, 8, 8, 30, 3, 3, 1, 1, 1, 2}, "", ""},
      {{2, 32, 9, 20, 32, 3, 3, 1, 1, 1, 8}, "rows", "rows"},
      {{1, 24, 7, 24, 48, 3, 3, 1, 1, 1, 3}, "rows", "rows"},
      {{1, 32, 8, 10, 32, 3, 3, 1, 1, 1, 8}, "", ""},
      {{1, 32, 14, 14, 32, 3, 3, 2, 1, 1, 8}, "phases", "phases"},
      {{2, 16, 13, 11, 16, 3, 3, 2, 1, 1, 2}, "phases", "phases"},
      {{1, 32, 12, 12, 32, 3, 3, 2, 1, 1, 2}, "phases", "phases"},
      {{1, 32, 16, 16, 32, 3, 3, 2, 1, 1, 2}, "lanes", "phases"},
      {{1, 24, 10, 10, 48, 3, 3, 2, 1, 1, 3}, "phases", "phases"},
      {{1, 16, 11, 11, 16, 3, 3, 2, 0, 1, 2}, "", ""},
      {{1, 6, 10, 10, 6, 3, 3, 2, 1, 1, 2}, "", ""},
  };
  std::mt19937 rng(14);
  for (const GroupedShape &g : shapes) {
    const ConvShape &s = g.shape;
    const dlk_conv2d_desc d32 = conv_desc(s, DLK_DTYPE_F32);
    int64_t oh = 0, ow = 0;
    REQUIRE(dlk_conv2d_output_shape(&d32, &oh, &ow) == DLK_STATUS_SUCCESS);
    const std::vector<int> diff_dst = random_ints(s.n * s.k * oh * ow, -3, 3, rng);
    const std::vector<int> weights =
        random_ints(s.k * s.c / s.groups * s.kh * s.kw, -3, 3, rng);
    const std::vector<int64_t> sums = exact_backward_data(d32, oh, ow, diff_dst, weights);
    for (const std::string &tier : cpu_tiers())
      for (const int threads : {1, 2, 3}) {
        const Context ctx(tier, threads);
        for (const dlk_dtype type : {DLK_DTYPE_F32, DLK_DTYPE_BF16}) {
          INFO(tier << " " << dlk_dtype_name(type) << " threads " << threads << describe(s));
          dlk_conv2d_desc d = conv_desc(s, type);
          check_exact_backward_data(ctx, d, diff_dst, weights, sums);
          const bool f32 = type == DLK_DTYPE_F32, on_avx512 = tier == "avx512";
          if (f32) {
            CHECK((implementation(ctx) == "turned:avx512:channel_lanes_f32:groups") ==
                  (on_avx512 && g.nchw == "lanes"));
            CHECK((implementation(ctx) == "turned:avx512:wide_rows_f32:groups") ==
                  (on_avx512 && g.nchw == "rows"));
          }
          CHECK((implementation(ctx).rfind("phases:avx512:conv2d_wide_rows_", 0) == 0) ==
                (on_avx512 && g.nchw == "phases"));
          INFO("nhwc");
          d.format = DLK_FORMAT_NHWC;
          check_exact_backward_data(ctx, d, to_nhwc(diff_dst, s.n, s.k, oh * ow),
                                    to_nhwc(weights, s.k, s.c / s.groups, s.kh * s.kw),
                                    to_nhwc(sums, s.n, s.c, s.h * s.w));
          if (f32) {
            CHECK((implementation(ctx) == "turned:avx512:channel_lanes_f32_nhwc:groups") ==
                  (on_avx512 && g.nhwc == "lanes"));
            CHECK((implementation(ctx) == "turned:avx512:wide_rows_f32:groups") ==
                  (on_avx512 && g.nhwc == "rows"));
          }
          CHECK((implementation(ctx).rfind("phases:avx512:conv2d_wide_rows_", 0) == 0) ==
                (on_avx512 && g.nhwc == "phases"));
        }
      }
  }
}

// Backward weights (conv2d_backward_weights_groups.cpp): each group's weight
// gradient on the direct kernel (4 to 16 output
// channels a group, f32: groups of 4, of 8 over 2 images, of 16 at stride 2
// over 3), the channel-block kernel (more: 20 a group over 144 pixels, f32
// over 1 and 2 images; bf16 from 16: 16, 17, 20 and 32 a group, under f32's
// floor of 128 pixels too), or the direct kernel in parts of up to 16 output
// channels (f32 under that floor: 20 as 10 + 10, 17 as 9 + 8, 32 over 2
// images as 16 + 16); over several images through a compact copy of the
// group's batch (of a part's output channels; NHWC turned channel-major, its
// OIHW gradient turned into OHWI after); declined at 3 channels a group (and
// bf16 at 8). f32 and bf16 rounded once, with and without diff_bias, NCHW and
// NHWC, 1-3 threads (a part's diff_dst copied from the group's first channel
// fails it).
TEST_CASE("conv2d backward weights with groups: each group on the direct or channel-block "
          "kernel, exact, f32 and bf16, NCHW and NHWC, 1-3 threads",
          "[cpu][conv2d]") {
  struct GradientShape {
    ConvShape shape;
    std::string f32, bf16;  // "direct", "blocks" or "" on the AVX-512 tier
  };
  const GradientShape shapes[] = {
      {{1, 32, 9, 10, 32, 3, 3, 1, 1, 1, 8}, "direct", ""},
      {{2, 64, 8, 9, 64, 3, 3, 1, 1, 1, 8}, "direct", ""},
      {{3, 32, 7, 7, 32, 3, 3, 2, 1, 1, 2}, "direct", "blocks"},
      {{1, 40, 12, 12, 40, 3, 3, 1, 1, 1, 2}, "blocks", "blocks"},
      {{2, 40, 12, 12, 40, 3, 3, 1, 1, 1, 2}, "blocks", "blocks"},
      {{1, 40, 8, 8, 40, 3, 3, 1, 1, 1, 2}, "direct", "blocks"},
      {{1, 32, 12, 12, 32, 3, 3, 1, 1, 1, 2}, "direct", "blocks"},
      {{2, 64, 7, 7, 64, 3, 3, 1, 1, 1, 2}, "direct", "blocks"},
      {{1, 34, 7, 7, 34, 3, 3, 1, 1, 1, 2}, "direct", "blocks"},
      {{1, 24, 9, 10, 12, 3, 3, 1, 1, 1, 4}, "", ""},
  };
  std::mt19937 rng(16);
  for (const GradientShape &g : shapes) {
    const ConvShape &s = g.shape;
    GradientCase k = gradient_case(s, rng);
    for (const dlk_dtype type : {DLK_DTYPE_F32, DLK_DTYPE_BF16}) {
      k.d = conv_desc(s, type);
      const bool f32 = type == DLK_DTYPE_F32;
      for (const std::string &tier : cpu_tiers())
        for (const int threads : {1, 2, 3}) {
          const Context ctx(tier, threads);
          INFO(tier << " " << dlk_dtype_name(type) << " threads " << threads << describe(s));
          for (const bool with_bias : {false, true}) {
            Buffer<float> diff_bias(ctx, std::vector<float>(k.diff_bias.size(), NAN));
            check_exact_backward_weights(ctx, k.d, k.src, k.dy, k.diff_weights,
                                         with_bias ? diff_bias.data() : nullptr);
            if (with_bias) CHECK(diff_bias.values() == k.diff_bias);
            const std::string name = implementation(ctx);
            const std::string &route = f32 ? g.f32 : g.bf16;
            const bool avx512 = tier == "avx512" && !lowers_to_amx(tier, type, s.c, s.groups);
            CHECK((name == "avx512:group_direct_backward_weights_f32") ==
                  (avx512 && route == "direct"));
            CHECK((name.rfind("avx512:group_channel_blocks_", 0) == 0) ==
                  (avx512 && route == "blocks"));
            INFO("nhwc");
            dlk_conv2d_desc nhwc = k.d;
            nhwc.format = DLK_FORMAT_NHWC;
            const int64_t khw = s.kh * s.kw;
            check_exact_backward_weights(
                ctx, nhwc, to_nhwc(k.src, s.n, s.c, s.h * s.w),
                to_nhwc(k.dy, s.n, s.k, k.oh * k.ow),
                to_nhwc(k.diff_weights, s.k, s.c / s.groups, khw),
                with_bias ? diff_bias.data() : nullptr);
            if (with_bias) CHECK(diff_bias.values() == k.diff_bias);
            // (NHWC: one image's groups of more than 16 output channels keep the GEMM.)
            const bool nhwc_route = avx512 && !route.empty() && !(s.n == 1 && s.k / s.groups > 16);
            const std::string nhwc_name = implementation(ctx);
            CHECK((nhwc_name.rfind("avx512:group_", 0) == 0) == nhwc_route);
            if (nhwc_route) CHECK(nhwc_name == name);
          }
        }
    }
  }
}

}  // namespace dlk::cpu_test
