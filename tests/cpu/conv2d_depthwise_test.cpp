// Which lowering a forward convolution takes on the CPU backend: depthwise
// (groups == c, any channel multiplier; f32, and f16/bf16/int8 staged in f32;
// int8 up to 514 taps) runs the direct depthwise kernel of the context's tier
// (NHWC below 16 channels staged as NCHW), every other convolution the GEMM
// (the rule of
// backends/cpu_avx512/cpu_ops.hpp). Its results are checked by the
// conformance suite on every tier; here, that the rule holds, as
// dlk_context_last_op names what ran, and that the tiers' direct kernels,
// which sum in the same order, give the same bits.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {
namespace {

std::string forward_implementation(const Context &ctx, dlk_format format, dlk_dtype dtype,
                                   int64_t c, int64_t k, int64_t groups, int64_t kw = 3) {
  dlk_conv2d_desc d;
  dlk_conv2d_desc_init(&d, dtype, 1, c, 6, kw + 4, k, 3, kw);
  if (dtype == DLK_DTYPE_U8) d.weights_type = DLK_DTYPE_S8;
  d.format = format;
  d.groups = groups;
  d.pad_h = d.pad_w = 1;
  d.relu = 1;
  int64_t oh = 0, ow = 0;
  REQUIRE(dlk_conv2d_output_shape(&d, &oh, &ow) == DLK_STATUS_SUCCESS);
  const size_t elem = dlk_dtype_size(dtype);
  Buffer<unsigned char> src(ctx, std::vector<unsigned char>(c * 6 * (kw + 4) * elem, 0));
  Buffer<unsigned char> weights(ctx, std::vector<unsigned char>(k * c / groups * 3 * kw * elem, 0));
  Buffer<float> bias(ctx, std::vector<float>(k, 1.0f));
  Buffer<unsigned char> dst(ctx, std::vector<unsigned char>(k * oh * ow * elem, 0));
  REQUIRE(dlk_conv2d_forward(ctx.get(), &d, src.data(), weights.data(), bias.data(), dst.data()) ==
          DLK_STATUS_SUCCESS);
  dlk_op_record record;
  REQUIRE(dlk_context_last_op(ctx.get(), &record) == DLK_STATUS_SUCCESS);
  return record.implementation;
}

}  // namespace

TEST_CASE("conv2d forward: depthwise runs the direct kernel of the tier, the rest the GEMM",
          "[cpu][conv2d]") {
  for (const std::string &tier : cpu_tiers()) {
    const Context ctx(tier);
    for (dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC}) {
      INFO(tier << (format == DLK_FORMAT_NCHW ? " nchw" : " nhwc"));
      // 8 channels: NHWC stages them as NCHW.
      const std::string direct =
          tier + (format == DLK_FORMAT_NHWC ? ":depthwise_direct_via_nchw_" : ":depthwise_direct_");
      CHECK(forward_implementation(ctx, format, DLK_DTYPE_F32, 8, 8, 8) == direct + "f32");
      CHECK(forward_implementation(ctx, format, DLK_DTYPE_F32, 8, 24, 8) == direct + "f32");
      CHECK(forward_implementation(ctx, format, DLK_DTYPE_F16, 8, 8, 8) == direct + "f16");
      CHECK(forward_implementation(ctx, format, DLK_DTYPE_BF16, 8, 16, 8) == direct + "bf16");
      CHECK(forward_implementation(ctx, format, DLK_DTYPE_S8, 8, 8, 8) == direct + "s8");
      CHECK(forward_implementation(ctx, format, DLK_DTYPE_U8, 8, 8, 8) == direct + "u8");
      // 15 channels staged, 16 (a full AVX-512 vector) in place.
      CHECK(forward_implementation(ctx, format, DLK_DTYPE_F32, 15, 15, 15) == direct + "f32");
      CHECK(forward_implementation(ctx, format, DLK_DTYPE_S8, 16, 32, 16) ==
            tier + ":depthwise_direct_s8");
      // int8 with more taps than f32 sums exactly (3 x 172 = 516 > 514), and
      // a grouped convolution: the GEMM.
      CHECK(forward_implementation(ctx, format, DLK_DTYPE_S8, 8, 8, 8, 172).find("im2col") == 0);
      CHECK(forward_implementation(ctx, format, DLK_DTYPE_S8, 8, 8, 8, 171) == direct + "s8");
      CHECK(forward_implementation(ctx, format, DLK_DTYPE_F32, 8, 8, 4).find("im2col") == 0);
    }
  }
}

TEST_CASE("conv2d forward: the direct depthwise kernels of every tier agree bit for bit",
          "[cpu][conv2d]") {
  // Rows and channels past every tier's vector blocks, stride 2 and 1,
  // padding, a channel multiplier of 2, bias and ReLU; 5 channels (NHWC
  // staged as NCHW) and 37.
  for (const int64_t c : {37, 5})
  for (dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC}) {
    INFO(c << (format == DLK_FORMAT_NCHW ? " nchw" : " nhwc"));
    dlk_conv2d_desc d;
    dlk_conv2d_desc_init(&d, DLK_DTYPE_F32, 2, c, 9, 83, 2 * c, 3, 5);
    d.format = format;
    d.groups = c;
    d.stride_h = 2;
    d.pad_h = 1, d.pad_w = 2;
    d.relu = 1;
    int64_t oh = 0, ow = 0;
    REQUIRE(dlk_conv2d_output_shape(&d, &oh, &ow) == DLK_STATUS_SUCCESS);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    const auto values = [&](int64_t count) {
      std::vector<float> v(static_cast<size_t>(count));
      for (float &x : v) x = u(rng);
      return v;
    };
    const std::vector<float> src = values(d.n * d.c * d.h * d.w), weights = values(d.k * 15),
                             bias = values(d.k);
    std::vector<std::vector<float>> results;
    for (const std::string &tier : cpu_tiers()) {
      const Context ctx(tier);
      Buffer<float> s(ctx, src), w(ctx, weights), b(ctx, bias);
      Buffer<float> dst(ctx, std::vector<float>(d.n * d.k * oh * ow, 0.0f));
      REQUIRE(dlk_conv2d_forward(ctx.get(), &d, s.data(), w.data(), b.data(), dst.data()) ==
              DLK_STATUS_SUCCESS);
      results.push_back(dst.values());
    }
    for (size_t t = 1; t < results.size(); ++t) CHECK(results[t] == results[0]);
  }
}

TEST_CASE("conv2d forward: int8 depthwise sums exactly at the direct kernel's tap limit",
          "[cpu][conv2d][int8]") {
  // 2 x 257 = 514 taps of 255 x -128 (u8, zero point 0) and of the other
  // extreme: sums of magnitude just below 2^24, where f32 still holds every
  // integer; s32 dst, so the sums come out bare. Channel 1 has mixed signs.
  const int64_t c = 3, kh = 2, kw = 257, taps = kh * kw;
  for (const std::string &tier : cpu_tiers()) {
    INFO(tier);
    const Context ctx(tier);
    dlk_conv2d_desc d;
    dlk_conv2d_desc_init(&d, DLK_DTYPE_U8, 1, c, kh, kw, c, kh, kw);
    d.weights_type = DLK_DTYPE_S8;
    d.dst_type = DLK_DTYPE_S32;
    d.groups = c;
    std::vector<uint8_t> src(c * taps, 255);
    std::vector<int8_t> weights(c * taps, -128);
    for (int64_t t = 0; t < taps; ++t) {
      src[2 * taps + t] = 0;  // channel 2: all zero
      weights[taps + t] = t % 2 ? 127 : -128;
    }
    Buffer<uint8_t> s(ctx, src);
    Buffer<int8_t> w(ctx, weights);
    Buffer<int32_t> dst(ctx, std::vector<int32_t>(c, 1));
    REQUIRE(dlk_conv2d_forward(ctx.get(), &d, s.data(), w.data(), nullptr, dst.data()) ==
            DLK_STATUS_SUCCESS);
    dlk_op_record record;
    REQUIRE(dlk_context_last_op(ctx.get(), &record) == DLK_STATUS_SUCCESS);
    CHECK(std::string(record.implementation) == tier + ":depthwise_direct_u8");
    const std::vector<int32_t> out = dst.values();
    CHECK(out[0] == -255 * 128 * taps);  // -16776960
    CHECK(out[1] == 255 * (127 - 128) * (taps / 2));
    CHECK(out[2] == 0);
  }
}

TEST_CASE("conv2d forward: staged depthwise gives the same bits with an image per thread",
          "[cpu][conv2d]") {
  // 4 images on 2 threads stage an image per thread side by side; each image
  // alone (n = 1) runs on both threads one image at a time. Same f32 kernel,
  // same order of sums: the same bits. bf16 with bias and ReLU; u8 -> u8
  // requantized with a scale per channel, a zero point and bias.
  const int64_t n = 4, c = 6, h = 9, w = 11, k = 12;
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> byte(0, 255);
  for (const std::string &tier : cpu_tiers()) {
    const Context ctx(tier, 2);
    for (const dlk_dtype dtype : {DLK_DTYPE_BF16, DLK_DTYPE_U8}) {
      INFO(tier << " " << dlk_dtype_name(dtype));
      const bool u8 = dtype == DLK_DTYPE_U8;
      dlk_conv2d_desc d;
      dlk_conv2d_desc_init(&d, dtype, n, c, h, w, k, 3, 3);
      d.groups = c;
      d.pad_h = d.pad_w = 1;
      d.relu = 1;
      std::vector<float> scales(k);
      for (int64_t o = 0; o < k; ++o) scales[o] = 0.01f * static_cast<float>(o + 1);
      if (u8) {
        d.weights_type = DLK_DTYPE_S8;
        d.src_zero_point = 7, d.dst_zero_point = 3;
        d.scale_mode = DLK_SCALE_PER_CHANNEL;
        d.scales = scales.data();
      }
      const size_t elem = dlk_dtype_size(dtype);
      const auto bytes = [&](int64_t count) {
        std::vector<unsigned char> v(static_cast<size_t>(count) * elem);
        for (size_t e = 0; e < v.size(); ++e)  // bf16: small values, every exponent sane
          v[e] = static_cast<unsigned char>(u8 || e % 2 == 0 ? byte(rng) : 0x3c + byte(rng) % 8);
        return v;
      };
      const int64_t image_in = c * h * w, image_out = k * h * w;
      Buffer<unsigned char> src(ctx, bytes(n * image_in)), weights(ctx, bytes(k * 9));
      Buffer<float> bias(ctx, std::vector<float>(k, 0.5f));
      Buffer<unsigned char> all(ctx, std::vector<unsigned char>(n * image_out * elem, 0));
      REQUIRE(dlk_conv2d_forward(ctx.get(), &d, src.data(), weights.data(), bias.data(),
                                 all.data()) == DLK_STATUS_SUCCESS);
      dlk_conv2d_desc one = d;
      one.n = 1;
      Buffer<unsigned char> each(ctx, std::vector<unsigned char>(n * image_out * elem, 0));
      for (int64_t i = 0; i < n; ++i)
        REQUIRE(dlk_conv2d_forward(ctx.get(), &one, src.data() + i * image_in * elem,
                                   weights.data(), bias.data(),
                                   each.data() + i * image_out * elem) == DLK_STATUS_SUCCESS);
      CHECK(all.values() == each.values());
    }
  }
}

}  // namespace dlk::cpu_test
