// dlk_conv2d_forward_packed against dlk_conv2d_forward, and
// dlk_conv2d_backward_data_packed against dlk_conv2d_backward_data: bit for
// bit the same dst (diff_src) on every tier, dtype and layout, where the
// weights were packed (the channel-lane kernel's shapes, and bf16 and int8 on
// the AMX implicit GEMM where the CPU has AMX: the name ends in ":prepacked")
// and where they were kept as given (every other kernel); at another batch
// than the one packed for, on 1 to 3 threads, and after the caller's weights
// changed.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {
namespace {

struct Shape {
  dlk_format format;
  int64_t n, c, h, w, k, kh, kw, stride, pad;
};

// Channel-lane shapes (two blocks and a part, stride 2, 7x7 over 3 channels,
// c not a whole number of int8 quads, NCHW and NHWC), 49 pixels (res5's 7 x 7:
// the channel-lane kernel only with its weights packed before, whose floor is
// 48; on AMX, 64 channels: the implicit GEMM), 16 pixels for 96 output
// channels (on AMX, the implicit GEMM only with its weights packed before),
// and shapes of the other kernels: few output channels, a 1x1 GEMM, too few
// pixels.
const Shape kShapes[] = {
    {DLK_FORMAT_NCHW, 1, 64, 7, 7, 32, 3, 3, 1, 1},
    {DLK_FORMAT_NHWC, 2, 64, 7, 7, 48, 3, 3, 1, 1},
    {DLK_FORMAT_NCHW, 1, 8, 16, 16, 65, 3, 3, 1, 1},
    {DLK_FORMAT_NCHW, 2, 30, 12, 12, 48, 3, 3, 1, 1},
    {DLK_FORMAT_NCHW, 2, 9, 15, 17, 33, 3, 3, 2, 1},
    {DLK_FORMAT_NCHW, 1, 3, 30, 30, 24, 7, 7, 2, 3},
    {DLK_FORMAT_NHWC, 1, 29, 16, 16, 40, 3, 3, 1, 1},
    {DLK_FORMAT_NHWC, 2, 30, 13, 13, 17, 3, 3, 2, 1},
    {DLK_FORMAT_NCHW, 2, 4, 9, 23, 10, 3, 2, 1, 0},
    {DLK_FORMAT_NCHW, 2, 20, 5, 7, 24, 1, 1, 1, 0},
    {DLK_FORMAT_NHWC, 1, 16, 5, 5, 32, 3, 3, 1, 1},
    {DLK_FORMAT_NHWC, 2, 64, 4, 4, 96, 3, 3, 1, 1},
};

struct Types {
  dlk_dtype src, weights, dst;
  dlk_scale_mode scale_mode;
};

const Types kTypes[] = {
    {DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_SCALE_NONE},
    {DLK_DTYPE_BF16, DLK_DTYPE_BF16, DLK_DTYPE_BF16, DLK_SCALE_NONE},
    {DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_S32, DLK_SCALE_NONE},
    {DLK_DTYPE_S8, DLK_DTYPE_S8, DLK_DTYPE_U8, DLK_SCALE_PER_CHANNEL},
};

// Random bytes for int8, random small values for the float types (their bits).
std::vector<uint8_t> random_tensor(dlk_dtype type, int64_t count, std::mt19937 &rng) {
  const size_t size = dlk_dtype_size(type);
  std::vector<uint8_t> bytes(static_cast<size_t>(count) * size);
  std::uniform_int_distribution<int> value(-8, 8), byte(0, 255);
  for (int64_t i = 0; i < count; ++i) {
    if (type == DLK_DTYPE_F32) {
      const float v = static_cast<float>(value(rng)) / 4;
      std::memcpy(&bytes[i * size], &v, size);
    } else if (type == DLK_DTYPE_BF16) {
      const uint16_t v = bf16_bits(static_cast<float>(value(rng)) / 4);
      std::memcpy(&bytes[i * size], &v, size);
    } else {
      bytes[i] = static_cast<uint8_t>(byte(rng));
    }
  }
  return bytes;
}

bool ends_with(const std::string &text, const std::string &suffix) {
  return text.size() > suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

dlk_conv2d_desc desc_of(const Shape &s, const Types &t, int64_t n, const float *scales) {
  dlk_conv2d_desc d;
  dlk_conv2d_desc_init(&d, t.src, n, s.c, s.h, s.w, s.k, s.kh, s.kw);
  d.format = s.format;
  d.stride_h = d.stride_w = s.stride;
  d.pad_h = d.pad_w = s.pad;
  d.weights_type = t.weights;
  d.dst_type = t.dst;
  d.scale_mode = t.scale_mode;
  d.scales = t.scale_mode == DLK_SCALE_NONE ? nullptr : scales;
  d.relu = t.dst != DLK_DTYPE_S32;
  if (t.src == DLK_DTYPE_U8) d.src_zero_point = 3;
  if (t.src == DLK_DTYPE_S8) d.src_zero_point = -5;
  if (t.dst == DLK_DTYPE_U8) d.dst_zero_point = 7;
  return d;
}

}  // namespace

TEST_CASE("conv2d forward with packed weights equals the forward with the weights as given",
          "[cpu][conv2d]") {
  std::mt19937 rng(26);
  for (const std::string &tier : cpu_tiers())
    for (int threads : {1, 2, 3}) {
      const Context ctx(tier, threads);
      for (const Shape &s : kShapes)
        for (const Types &t : kTypes) {
          // Packed for a batch of one, run at one and at the shape's batch.
          std::vector<float> scales(static_cast<size_t>(s.k));
          for (size_t i = 0; i < scales.size(); ++i) scales[i] = 0.01f * float(i % 7 + 1);
          bool lanes_at_one = false;
          for (int64_t n : {int64_t{1}, s.n}) {
            const dlk_conv2d_desc packed_for = desc_of(s, t, 1, scales.data());
            const dlk_conv2d_desc d = desc_of(s, t, n, scales.data());
            int64_t oh = 0, ow = 0;
            REQUIRE(dlk_conv2d_output_shape(&d, &oh, &ow) == DLK_STATUS_SUCCESS);
            INFO(tier << " threads " << threads << " format " << s.format << " c " << s.c
                      << " h " << s.h << " k " << s.k << " kh " << s.kh << " stride "
                      << s.stride << " " << dlk_dtype_name(t.src) << ":"
                      << dlk_dtype_name(t.dst) << " n " << n);
            Buffer<uint8_t> src(ctx, random_tensor(t.src, n * s.c * s.h * s.w, rng));
            const std::vector<uint8_t> weight_values =
                random_tensor(t.weights, s.k * s.c * s.kh * s.kw, rng);
            Buffer<uint8_t> weights(ctx, weight_values);
            std::vector<float> bias_values(static_cast<size_t>(s.k));
            for (size_t i = 0; i < bias_values.size(); ++i)
              bias_values[i] = float(int(i % 5) - 2) / 2;
            Buffer<float> bias(ctx, bias_values);
            const float *bias_ptr = t.dst == DLK_DTYPE_S32 ? nullptr : bias.data();
            const auto dst_bytes =
                static_cast<size_t>(n * s.k * oh * ow) * dlk_dtype_size(t.dst);
            Buffer<uint8_t> plain_dst(ctx, std::vector<uint8_t>(dst_bytes, 0xA5));
            Buffer<uint8_t> packed_dst(ctx, std::vector<uint8_t>(dst_bytes, 0x5A));

            REQUIRE(dlk_conv2d_forward(ctx.get(), &d, src.data(), weights.data(), bias_ptr,
                                       plain_dst.data()) == DLK_STATUS_SUCCESS);
            const std::string plain_kernel = implementation(ctx);
            dlk_conv2d_weights_t packed = nullptr;
            REQUIRE(dlk_conv2d_weights_create(ctx.get(), &packed_for, weights.data(),
                                              &packed) == DLK_STATUS_SUCCESS);
            // The handle keeps its own copy: the caller's weights may change.
            std::fill(weights.data(), weights.data() + weight_values.size(), uint8_t{0x11});
            REQUIRE(dlk_conv2d_forward_packed(ctx.get(), &d, src.data(), packed, bias_ptr,
                                              packed_dst.data()) == DLK_STATUS_SUCCESS);
            const std::string packed_kernel = implementation(ctx);
            CHECK(packed_dst.values() == plain_dst.values());
            // Packed where the channel-lane kernel runs with packed weights at
            // the packing's batch too (its rule counts all images' pixels, 48
            // of them with packed weights, 128 without): always where it runs
            // without them, and at 49 pixels on the AVX-512 tier in f32.
            // Packed wherever the AMX kernel runs without them, and below its
            // floor on the pixels (16 pixels, 96 output channels).
            const std::string lanes_name = "avx512:conv2d_channel_lanes", suffix = ":prepacked";
            const std::string amx_name = "avx512:conv2d_amx";
            const bool plain_lanes = plain_kernel.rfind(lanes_name, 0) == 0;
            const bool lanes = packed_kernel.rfind(lanes_name, 0) == 0;
            const bool amx = packed_kernel.rfind(amx_name, 0) == 0;
            const bool prepacked = ends_with(packed_kernel, suffix);
            if (n == 1) lanes_at_one = lanes;
            if (plain_lanes && lanes_at_one) CHECK(packed_kernel == plain_kernel + suffix);
            if (tier == "avx512" && t.src == DLK_DTYPE_F32 && s.h == 7) CHECK(lanes);
            if (plain_kernel.rfind(amx_name, 0) == 0) CHECK(packed_kernel == plain_kernel + suffix);
            if (t.src != DLK_DTYPE_F32 && s.h == 4 && runs_on_amx(tier, t.src)) CHECK(amx);
            if (lanes) {
              CHECK(lanes_at_one);
              CHECK(prepacked);
            } else if (amx) {
              CHECK(prepacked);
            } else {
              CHECK(packed_kernel == plain_kernel);
            }
            CHECK(dlk_conv2d_weights_destroy(ctx.get(), packed) == DLK_STATUS_SUCCESS);
          }
        }
    }
}

namespace {

// Backward data's turned convolution on the AMX kernel (bf16: c and k whole
// tile rows; NCHW and NHWC; 16 pixels for 64 channels: only with its weights
// packed before), at stride 2 in four phases on it (even and odd extents, 2x2
// and 3x3 kernels, output channels not whole blocks; a 3x3 without padding,
// whose phases read diff_dst from different rows, keeps the GEMM), on the
// channel-lane kernel (stride 1, and stride 2 in phases), and on the GEMM and
// col2im (few channels, a 1x1 without it).
const Shape kBackwardShapes[] = {
    {DLK_FORMAT_NCHW, 2, 64, 8, 8, 32, 3, 3, 1, 1},
    {DLK_FORMAT_NHWC, 2, 32, 9, 9, 64, 3, 3, 1, 1},
    {DLK_FORMAT_NCHW, 1, 64, 4, 4, 64, 3, 3, 1, 1},
    {DLK_FORMAT_NHWC, 2, 64, 4, 4, 64, 3, 3, 1, 1},
    {DLK_FORMAT_NCHW, 2, 32, 12, 12, 64, 3, 3, 2, 1},
    {DLK_FORMAT_NHWC, 1, 64, 9, 7, 32, 3, 3, 2, 1},
    {DLK_FORMAT_NCHW, 1, 40, 11, 8, 32, 2, 2, 2, 0},
    {DLK_FORMAT_NHWC, 2, 48, 8, 10, 64, 3, 3, 2, 1},
    {DLK_FORMAT_NCHW, 1, 32, 9, 9, 32, 3, 3, 2, 0},
    {DLK_FORMAT_NCHW, 1, 64, 14, 14, 48, 3, 3, 1, 1},
    {DLK_FORMAT_NHWC, 2, 48, 12, 12, 40, 3, 3, 2, 1},
    {DLK_FORMAT_NCHW, 2, 6, 9, 11, 5, 3, 3, 1, 0},
    {DLK_FORMAT_NHWC, 2, 20, 5, 7, 24, 1, 1, 1, 0},
};

}  // namespace

TEST_CASE("conv2d backward data with packed weights equals it with the weights as given",
          "[cpu][conv2d]") {
  std::mt19937 rng(2606);
  const Types kFloat[] = {kTypes[0], kTypes[1]};
  for (const std::string &tier : cpu_tiers())
    for (int threads : {1, 2, 3}) {
      const Context ctx(tier, threads);
      for (const Shape &s : kBackwardShapes)
        for (const Types &t : kFloat) {
          // Packed for a batch of one with the forward's ReLU fused (backward
          // data leaves it out), run at one and at the shape's batch.
          bool packed_at_one = false;
          for (int64_t n : {int64_t{1}, s.n}) {
            const dlk_conv2d_desc packed_for = desc_of(s, t, 1, nullptr);
            dlk_conv2d_desc d = desc_of(s, t, n, nullptr);
            d.relu = 0;
            int64_t oh = 0, ow = 0;
            REQUIRE(dlk_conv2d_output_shape(&d, &oh, &ow) == DLK_STATUS_SUCCESS);
            INFO(tier << " threads " << threads << " format " << s.format << " c " << s.c
                      << " h " << s.h << " k " << s.k << " kh " << s.kh << " stride "
                      << s.stride << " " << dlk_dtype_name(t.src) << " n " << n);
            Buffer<uint8_t> diff_dst(ctx, random_tensor(t.dst, n * s.k * oh * ow, rng));
            const std::vector<uint8_t> weight_values =
                random_tensor(t.weights, s.k * s.c * s.kh * s.kw, rng);
            Buffer<uint8_t> weights(ctx, weight_values);
            const auto src_bytes = static_cast<size_t>(n * s.c * s.h * s.w) *
                                   dlk_dtype_size(t.src);
            Buffer<uint8_t> plain(ctx, std::vector<uint8_t>(src_bytes, 0xA5));
            Buffer<uint8_t> packed_diff(ctx, std::vector<uint8_t>(src_bytes, 0x5A));

            REQUIRE(dlk_conv2d_backward_data(ctx.get(), &d, diff_dst.data(), weights.data(),
                                             plain.data()) == DLK_STATUS_SUCCESS);
            const std::string plain_kernel = implementation(ctx);
            dlk_conv2d_weights_t packed = nullptr;
            REQUIRE(dlk_conv2d_weights_create_for(
                        ctx.get(), &packed_for, weights.data(),
                        DLK_CONV2D_PASS_FORWARD | DLK_CONV2D_PASS_BACKWARD_DATA,
                        &packed) == DLK_STATUS_SUCCESS);
            std::fill(weights.data(), weights.data() + weight_values.size(), uint8_t{0x11});
            REQUIRE(dlk_conv2d_backward_data_packed(ctx.get(), &d, diff_dst.data(), packed,
                                                    packed_diff.data()) == DLK_STATUS_SUCCESS);
            const std::string packed_kernel = implementation(ctx);
            CHECK(packed_diff.values() == plain.values());
            // Packed wherever the AMX kernel runs without it, and below its
            // floor (16 pixels, 64 channels); on the channel-lane kernel
            // wherever it runs without it and the handle's batch of one
            // took it.
            const std::string suffix = ":prepacked";
            const bool amx_plain = plain_kernel.rfind("turned:avx512:conv2d_amx", 0) == 0 ||
                                   plain_kernel.rfind("phases:avx512:conv2d_amx", 0) == 0;
            const bool lanes_plain =
                plain_kernel.rfind("turned:avx512:channel_lanes", 0) == 0;
            const bool prepacked = ends_with(packed_kernel, suffix);
            if (n == 1) packed_at_one = prepacked;
            if (amx_plain || (lanes_plain && packed_at_one))
              CHECK(packed_kernel == plain_kernel + suffix);
            if (t.src == DLK_DTYPE_BF16 && s.h == 4 && runs_on_amx(tier, t.src))
              CHECK(packed_kernel == "turned:avx512:conv2d_amx_bf16" +
                                         std::string(s.format == DLK_FORMAT_NHWC ? "_nhwc" : "") +
                                         suffix);
            const bool phases = s.stride == 2 && s.k % 32 == 0 && (s.kh == 2 || s.pad == 1);
            if (t.src == DLK_DTYPE_BF16 && phases && runs_on_amx(tier, t.src))
              CHECK(packed_kernel == "phases:avx512:conv2d_amx_bf16" +
                                         std::string(s.format == DLK_FORMAT_NHWC ? "_nhwc" : "") +
                                         suffix);
            if (!prepacked) CHECK(packed_kernel == plain_kernel);
            CHECK(dlk_conv2d_weights_destroy(ctx.get(), packed) == DLK_STATUS_SUCCESS);
          }
        }
    }
}

}  // namespace dlk::cpu_test
