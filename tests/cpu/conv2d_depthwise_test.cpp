// Which lowering a forward convolution takes on the CPU backend: depthwise f32
// (groups == c, any channel multiplier) runs the direct depthwise kernel of the
// context's tier, every other convolution the GEMM (the rule of
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
                                   int64_t c, int64_t k, int64_t groups) {
  dlk_conv2d_desc d;
  dlk_conv2d_desc_init(&d, dtype, 1, c, 6, 7, k, 3, 3);
  d.format = format;
  d.groups = groups;
  d.pad_h = d.pad_w = 1;
  d.relu = 1;
  int64_t oh = 0, ow = 0;
  REQUIRE(dlk_conv2d_output_shape(&d, &oh, &ow) == DLK_STATUS_SUCCESS);
  const size_t elem = dlk_dtype_size(dtype);
  Buffer<unsigned char> src(ctx, std::vector<unsigned char>(c * 6 * 7 * elem, 0));
  Buffer<unsigned char> weights(ctx, std::vector<unsigned char>(k * c / groups * 9 * elem, 0));
  Buffer<float> bias(ctx, std::vector<float>(k, 1.0f));
  Buffer<unsigned char> dst(ctx, std::vector<unsigned char>(k * oh * ow * elem, 0));
  REQUIRE(dlk_conv2d_forward(ctx.get(), &d, src.data(), weights.data(), bias.data(), dst.data()) ==
          DLK_STATUS_SUCCESS);
  dlk_op_record record;
  REQUIRE(dlk_context_last_op(ctx.get(), &record) == DLK_STATUS_SUCCESS);
  return record.implementation;
}

}  // namespace

TEST_CASE("conv2d forward: depthwise f32 runs the direct kernel of the tier, the rest the GEMM",
          "[cpu][conv2d]") {
  for (const std::string &tier : cpu_tiers()) {
    const Context ctx(tier);
    for (dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC}) {
      INFO(tier << (format == DLK_FORMAT_NCHW ? " nchw" : " nhwc"));
      CHECK(forward_implementation(ctx, format, DLK_DTYPE_F32, 8, 8, 8) ==
            tier + ":depthwise_direct_f32");
      CHECK(forward_implementation(ctx, format, DLK_DTYPE_F32, 8, 24, 8) ==
            tier + ":depthwise_direct_f32");
      // bf16 and a grouped convolution: the GEMM.
      CHECK(forward_implementation(ctx, format, DLK_DTYPE_BF16, 8, 8, 8).find("im2col") == 0);
      CHECK(forward_implementation(ctx, format, DLK_DTYPE_F32, 8, 8, 4).find("im2col") == 0);
    }
  }
}

TEST_CASE("conv2d forward: the direct depthwise kernels of every tier agree bit for bit",
          "[cpu][conv2d]") {
  // Rows and channels past every tier's vector blocks, stride 2 and 1,
  // padding, a channel multiplier of 2, bias and ReLU.
  for (dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC}) {
    dlk_conv2d_desc d;
    dlk_conv2d_desc_init(&d, DLK_DTYPE_F32, 2, 37, 9, 83, 74, 3, 5);
    d.format = format;
    d.groups = 37;
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

}  // namespace dlk::cpu_test
