// bf16 and int8 forward on the AMX implicit-GEMM kernel
// (kernels/conv2d_amx.cpp) at the edges of its scheme, bf16 backward data as
// its turned convolution, and bf16 backward weights
// (kernels/conv2d_amx_backward_weights.cpp): output rows narrower and wider
// than a tile of 32 flat positions, and tiles that straddle rows (the dropped
// positions past a row's end must not reach dst), the last tile's taps past
// the padded image (the buffer's zeroed tail), output channels one past and
// below a block of 32 (the panels' zero columns, dst's channels past k
// untouched), 32-256 channels (one to eight k steps a tap), kernels 2x2 to
// 5x5 and 1x3 / 3x1, padding 0 to wider than the kernel reaches, strides 2
// and 3 (phase planes of even and odd sides, taps one and two planes on),
// batch entries (every thread on a band of each image's tiles, or of its
// blocks past 1 MiB of panels, or an image a thread when the batch splits
// evenly), NCHW (src and dst turned by transposes, the weights turned to
// KRSC) and NHWC, bias and ReLU or neither, 1-3 threads. Small integers, so
// every sum is exact in f32 and dst is its one rounding to bf16.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/cpu/conv2d_exact.hpp"
#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {
namespace {

const ConvShape kShapes[] = {
    // n, c, h, w, k, kh, kw, stride, pad, dilation, groups
    {1, 32, 7, 7, 16, 3, 3, 1, 1, 1, 1},    // res5's 7 x 7: 81 positions, 63 computed
    {2, 64, 5, 13, 33, 3, 3, 1, 1, 1, 1},   // a channel past a block; tiles across rows
    {1, 32, 9, 30, 64, 3, 3, 1, 0, 1, 1},   // no padding: rows of 30 in 32-position tiles
    {3, 96, 4, 3, 40, 2, 2, 1, 2, 1, 1},    // padding wider than the kernel reaches
    {1, 32, 6, 17, 31, 5, 5, 1, 2, 1, 1},   // 5x5, a channel below a block
    {1, 64, 3, 40, 32, 1, 3, 1, 1, 1, 1},   // 1x3: rows wider than a tile
    {1, 192, 10, 10, 70, 3, 1, 1, 0, 1, 1}, // 3x1, six k steps a tap, three blocks
    {2, 32, 14, 14, 40, 3, 3, 2, 1, 1, 1},  // stride 2: four phase planes of 8 x 8
    {1, 64, 9, 13, 32, 3, 3, 2, 1, 1, 1},   // odd sides: planes of 6 x 8 and 6 x 7 pixels
    {1, 32, 11, 70, 33, 2, 4, 2, 0, 1, 1},  // 2x4, no padding, rows past a tile
    {2, 32, 12, 12, 16, 5, 5, 3, 2, 1, 1},  // stride 3: nine planes, taps two planes on
    {1, 256, 16, 16, 256, 3, 3, 1, 1, 1, 1}, // 1.2 MB of panels: threads share the blocks
};

// The exact NCHW forward: dst[n][k][oh][ow] = sum src x weights (OIHW).
std::vector<int64_t> exact_forward(const ConvShape &s, int64_t oh, int64_t ow,
                                   const std::vector<int> &src, const std::vector<int> &w) {
  std::vector<int64_t> out(s.n * s.k * oh * ow, 0);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t k = 0; k < s.k; ++k)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          int64_t sum = 0;
          for (int64_t c = 0; c < s.c; ++c)
            for (int64_t r = 0; r < s.kh; ++r)
              for (int64_t t = 0; t < s.kw; ++t) {
                const int64_t iy = y * s.stride + r - s.pad, ix = x * s.stride + t - s.pad;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                sum += int64_t{src[((n * s.c + c) * s.h + iy) * s.w + ix]} *
                       w[((k * s.c + c) * s.kh + r) * s.kw + t];
              }
          out[((n * s.k + k) * oh + y) * ow + x] = sum;
        }
  return out;
}

std::vector<uint16_t> bf16_of(const std::vector<int> &v) {
  std::vector<uint16_t> out;
  for (const int x : v) out.push_back(bf16_bits(static_cast<float>(x)));
  return out;
}

}  // namespace

TEST_CASE("conv2d forward bf16 on AMX tiles: exact sums, rounded once, at the edges of its flat "
          "positions and blocks, NCHW and NHWC, 1-3 threads",
          "[cpu][conv2d]") {
  if (!runs_on_amx("avx512", DLK_DTYPE_BF16)) {
    WARN("skipped: this CPU has no AMX-BF16 (or Linux did not grant the tile state)");
    return;
  }
  std::mt19937 rng(27);
  int variant = 0;
  for (const ConvShape &s : kShapes) {
    const int64_t oh = (s.h + 2 * s.pad - s.kh) / s.stride + 1;
    const int64_t ow = (s.w + 2 * s.pad - s.kw) / s.stride + 1;
    const std::vector<int> src = random_ints(s.n * s.c * s.h * s.w, -3, 3, rng);
    const std::vector<int> weights = random_ints(s.k * s.c * s.kh * s.kw, -3, 3, rng);
    const std::vector<int> bias = random_ints(s.k, -20, 20, rng);
    const std::vector<int64_t> sums = exact_forward(s, oh, ow, src, weights);
    const bool epilogue = variant++ % 2 == 0;  // bias and ReLU, or neither
    std::vector<int> want(sums.size());
    for (size_t e = 0; e < sums.size(); ++e) {
      const int64_t v = sums[e] + (epilogue ? bias[e / (oh * ow) % s.k] : 0);
      want[e] = static_cast<int>(epilogue ? std::max<int64_t>(0, v) : v);
    }
    for (const dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC}) {
      const bool nhwc = format == DLK_FORMAT_NHWC;
      dlk_conv2d_desc d = conv_desc(s, DLK_DTYPE_BF16);
      d.format = format;
      d.relu = epilogue;
      const auto layout = [&](const std::vector<int> &v, int64_t n, int64_t c, int64_t hw) {
        return nhwc ? to_nhwc(v, n, c, hw) : v;
      };
      const std::vector<uint16_t> src_bits = bf16_of(layout(src, s.n, s.c, s.h * s.w));
      const std::vector<uint16_t> weight_bits = bf16_of(layout(weights, s.k, s.c, s.kh * s.kw));
      const std::vector<uint16_t> expected = bf16_of(layout(want, s.n, s.k, oh * ow));
      for (const int threads : {1, 2, 3}) {
        const Context ctx("avx512", threads);
        INFO(describe(s) << (nhwc ? " nhwc" : " nchw") << " threads " << threads
                         << (epilogue ? " bias, relu" : ""));
        Buffer<uint16_t> src_buf(ctx, src_bits), weights_buf(ctx, weight_bits);
        Buffer<float> bias_buf(ctx, cast<float>(bias));
        Buffer<uint16_t> dst(ctx, std::vector<uint16_t>(expected.size(), 0xffff));
        REQUIRE(dlk_conv2d_forward(ctx.get(), &d, src_buf.data(), weights_buf.data(),
                                   epilogue ? bias_buf.data() : nullptr,
                                   dst.data()) == DLK_STATUS_SUCCESS);
        CHECK(implementation(ctx) ==
              (nhwc ? "avx512:conv2d_amx_bf16_nhwc" : "avx512:conv2d_amx_bf16"));
        CHECK(dst.values() == expected);
      }
    }
  }
}

TEST_CASE("conv2d forward int8 on AMX tiles: exact sums, src's zero point compensated, "
          "requantized as dlk.h says, NCHW and NHWC, 1-2 threads",
          "[cpu][conv2d]") {
  if (!runs_on_amx("avx512", DLK_DTYPE_U8)) {
    WARN("skipped: this CPU has no AMX-INT8 (or Linux did not grant the tile state)");
    return;
  }
  // Channels a multiple of 64 (a tile row of int8); the forward shapes' edges.
  const ConvShape shapes[] = {
      // n, c, h, w, k, kh, kw, stride, pad, dilation, groups
      {1, 64, 7, 7, 16, 3, 3, 1, 1, 1, 1},
      {2, 128, 5, 13, 33, 3, 3, 1, 1, 1, 1},
      {1, 64, 9, 30, 64, 3, 3, 1, 0, 1, 1},
      {3, 192, 4, 3, 40, 2, 2, 1, 2, 1, 1},
      {1, 64, 6, 17, 31, 5, 5, 1, 2, 1, 1},
      {2, 64, 9, 13, 40, 3, 3, 2, 1, 1, 1},
      {1, 64, 12, 40, 33, 3, 3, 3, 2, 1, 1},  // stride 3: nine planes, rows past a tile
  };
  std::mt19937 rng(29);
  for (const ConvShape &s : shapes) {
    const int64_t oh = (s.h + 2 * s.pad - s.kh) / s.stride + 1;
    const int64_t ow = (s.w + 2 * s.pad - s.kw) / s.stride + 1;
    const std::vector<int> weights = random_ints(s.k * s.c * s.kh * s.kw, -128, 127, rng);
    const std::vector<float> bias = cast<float>(random_ints(s.k, -200, 200, rng));
    std::vector<float> scales;
    for (int64_t o = 0; o < s.k; ++o) scales.push_back(0.001f * static_cast<float>(3 + o % 7));
    // u8 src with zero point 0 (nothing to compensate) and 201, s8 with -77.
    for (const auto &[type, zero_point] : {std::pair{DLK_DTYPE_U8, 0}, std::pair{DLK_DTYPE_U8, 201},
                                           std::pair{DLK_DTYPE_S8, -77}}) {
      const bool u8 = type == DLK_DTYPE_U8;
      const std::vector<int> src =
          random_ints(s.n * s.c * s.h * s.w, u8 ? 0 : -128, u8 ? 255 : 127, rng);
      std::vector<int> centred;
      for (const int v : src) centred.push_back(v - zero_point);
      const std::vector<int64_t> sums = exact_forward(s, oh, ow, centred, weights);
      for (const dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC})
        for (const dlk_dtype out : {DLK_DTYPE_S32, DLK_DTYPE_U8, DLK_DTYPE_F32}) {
          const bool nhwc = format == DLK_FORMAT_NHWC;
          dlk_conv2d_desc d = conv_desc(s, type);
          d.format = format;
          d.weights_type = DLK_DTYPE_S8;
          d.dst_type = out;
          d.src_zero_point = zero_point;
          d.dst_zero_point = out == DLK_DTYPE_U8 ? 100 : 0;
          d.relu = out != DLK_DTYPE_S32 || zero_point != 0;
          d.scale_mode = out == DLK_DTYPE_S32 ? DLK_SCALE_NONE : DLK_SCALE_PER_CHANNEL;
          d.scales = scales.data();
          const bool with_bias = out != DLK_DTYPE_S32;
          const auto layout = [&](const std::vector<int> &v, int64_t n, int64_t c, int64_t hw) {
            return nhwc ? to_nhwc(v, n, c, hw) : v;
          };
          const std::vector<int> src_in = layout(src, s.n, s.c, s.h * s.w);
          const std::vector<int> weights_in = layout(weights, s.k, s.c, s.kh * s.kw);
          const size_t count = static_cast<size_t>(s.n * s.k * oh * ow);
          for (const int threads : {1, 2}) {
            const Context ctx("avx512", threads);
            INFO(describe(s) << (nhwc ? " nhwc " : " nchw ") << dlk_dtype_name(type) << " zp "
                             << zero_point << " > " << dlk_dtype_name(out) << " threads "
                             << threads);
            Buffer<uint8_t> src_u8(ctx, cast<uint8_t>(src_in));
            Buffer<int8_t> src_s8(ctx, cast<int8_t>(src_in)), w(ctx, cast<int8_t>(weights_in));
            Buffer<float> bias_buf(ctx, bias);
            const std::vector<unsigned char> fill(count * dlk_dtype_size(out), 0xa5);
            Buffer<unsigned char> dst(ctx, fill);
            REQUIRE(dlk_conv2d_forward(ctx.get(), &d,
                                       u8 ? static_cast<void *>(src_u8.data()) : src_s8.data(),
                                       w.data(), with_bias ? bias_buf.data() : nullptr,
                                       dst.data()) == DLK_STATUS_SUCCESS);
            CHECK(implementation(ctx) ==
                  (nhwc ? "avx512:conv2d_amx_int8_nhwc" : "avx512:conv2d_amx_int8"));
            const std::vector<unsigned char> got = dst.values();
            size_t wrong = 0;
            for (size_t e = 0; e < count; ++e) {  // e in NCHW order
              const int64_t o = static_cast<int64_t>(e) / (oh * ow) % s.k;
              const int64_t pixel = static_cast<int64_t>(e) % (oh * ow);
              const int64_t n = static_cast<int64_t>(e) / (s.k * oh * ow);
              const size_t at = static_cast<size_t>(nhwc ? (n * oh * ow + pixel) * s.k + o
                                                         : static_cast<int64_t>(e));
              const auto acc = static_cast<int32_t>(sums[e]);
              if (out == DLK_DTYPE_S32) {
                int32_t v = 0;
                std::memcpy(&v, &got[at * 4], 4);
                wrong += v != (d.relu && acc < 0 ? 0 : acc);
                continue;
              }
              // dlk.h: v = (float)acc * scale_k + bias_k, ReLU, then requantized.
              float v = static_cast<float>(acc) * scales[static_cast<size_t>(o)];
              v = v + bias[static_cast<size_t>(o)];
              if (v < 0.0f) v = 0.0f;
              if (out == DLK_DTYPE_F32) {
                float f = 0;
                std::memcpy(&f, &got[at * 4], 4);
                wrong += std::memcmp(&f, &v, 4) != 0;
                continue;
              }
              const float r = std::min(255.0f, std::max(0.0f, std::nearbyint(v) + 100.0f));
              wrong += got[at] != static_cast<int>(r);
            }
            CHECK(wrong == 0);
          }
        }
    }
  }
}

TEST_CASE("conv2d backward data bf16 on AMX tiles: the turned convolution's exact sums, rounded "
          "once, NCHW and NHWC, 1-3 threads",
          "[cpu][conv2d]") {
  if (!runs_on_amx("avx512", DLK_DTYPE_BF16)) {
    WARN("skipped: this CPU has no AMX-BF16 (or Linux did not grant the tile state)");
    return;
  }
  // Stride 1, output channels a multiple of 32 (the turned convolution's
  // input channels), padding within the kernel's reach (its own padding
  // kh - 1 - pad from 0 up).
  const ConvShape shapes[] = {
      // n, c, h, w, k, kh, kw, stride, pad, dilation, groups
      {1, 16, 7, 7, 32, 3, 3, 1, 1, 1, 1},    // diff_src's 16 channels: one B half
      {2, 33, 6, 11, 64, 3, 3, 1, 0, 1, 1},   // a channel past a block, turned padding 2
      {1, 70, 9, 30, 96, 5, 3, 1, 2, 1, 1},   // 5x3, three k steps a tap
      {1, 48, 6, 6, 32, 3, 3, 1, 1, 1, 1},    // 36 pixels for 48 channels: the turned floor
  };
  std::mt19937 rng(28);
  for (const ConvShape &s : shapes) {
    const int64_t oh = s.h + 2 * s.pad - s.kh + 1, ow = s.w + 2 * s.pad - s.kw + 1;
    const std::vector<int> diff_dst = random_ints(s.n * s.k * oh * ow, -3, 3, rng);
    const std::vector<int> weights = random_ints(s.k * s.c * s.kh * s.kw, -3, 3, rng);
    dlk_conv2d_desc d = conv_desc(s, DLK_DTYPE_BF16);
    std::vector<int> sums;
    for (const int64_t v : exact_backward_data(d, oh, ow, diff_dst, weights))
      sums.push_back(static_cast<int>(v));
    for (const dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC}) {
      const bool nhwc = format == DLK_FORMAT_NHWC;
      d.format = format;
      const auto layout = [&](const std::vector<int> &v, int64_t n, int64_t c, int64_t hw) {
        return nhwc ? to_nhwc(v, n, c, hw) : v;
      };
      const std::vector<uint16_t> dd_bits = bf16_of(layout(diff_dst, s.n, s.k, oh * ow));
      const std::vector<uint16_t> weight_bits = bf16_of(layout(weights, s.k, s.c, s.kh * s.kw));
      const std::vector<uint16_t> expected = bf16_of(layout(sums, s.n, s.c, s.h * s.w));
      for (const int threads : {1, 2, 3}) {
        const Context ctx("avx512", threads);
        INFO(describe(s) << (nhwc ? " nhwc" : " nchw") << " threads " << threads);
        Buffer<uint16_t> dd(ctx, dd_bits), w(ctx, weight_bits);
        Buffer<uint16_t> diff_src(ctx, std::vector<uint16_t>(expected.size(), 0xffff));
        REQUIRE(dlk_conv2d_backward_data(ctx.get(), &d, dd.data(), w.data(), diff_src.data()) ==
                DLK_STATUS_SUCCESS);
        CHECK(implementation(ctx) == (nhwc ? "turned:avx512:conv2d_amx_bf16_nhwc"
                                           : "turned:avx512:conv2d_amx_bf16"));
        CHECK(diff_src.values() == expected);
      }
    }
  }
}

TEST_CASE("conv2d backward weights bf16 on AMX tiles: exact sums over every image, rounded once, "
          "diff_bias, NCHW and NHWC, 1-3 threads",
          "[cpu][conv2d]") {
  if (!runs_on_amx("avx512", DLK_DTYPE_BF16)) {
    WARN("skipped: this CPU has no AMX-BF16 (or Linux did not grant the tile state)");
    return;
  }
  // Channels multiples of 32; strides 1-3 (phase planes), kernels 2x2 to 5x5
  // and 1x3, padding 0 to wider than the kernel reaches; at least 512
  // positions over the batch (the kernel's floor); 64 x 64 images (550 KB of
  // operands each) summed a group of one image at a time, the sums carried
  // between groups in scratch; the rest one group; batches that split among
  // the threads (sums of their own, added up) and that do not, and one image
  // whose three blocks of output channels split among 2 and 3 threads; 64
  // positions (7 x 9), where the blocks go straight into OHWI (NHWC's
  // diff_weights, NCHW's stage turned into OIHW).
  const ConvShape shapes[] = {
      // n, c, h, w, k, kh, kw, stride, pad, dilation, groups
      {4, 32, 9, 9, 32, 3, 3, 1, 1, 1, 1},
      {8, 64, 9, 13, 64, 3, 3, 2, 1, 1, 1},
      {1, 32, 29, 70, 96, 2, 4, 2, 0, 1, 1},
      {16, 32, 12, 12, 32, 5, 5, 3, 2, 1, 1},
      {3, 96, 6, 17, 32, 1, 3, 1, 3, 1, 1},
      {2, 32, 64, 64, 32, 3, 3, 1, 1, 1, 1},
      {1, 64, 7, 7, 96, 3, 3, 1, 1, 1, 1},
  };
  std::mt19937 rng(30);
  for (const ConvShape &s : shapes) {
    const int64_t oh = (s.h + 2 * s.pad - s.kh) / s.stride + 1;
    const int64_t ow = (s.w + 2 * s.pad - s.kw) / s.stride + 1;
    const int64_t taps = s.kh * s.kw;
    const std::vector<int> src = random_ints(s.n * s.c * s.h * s.w, -3, 3, rng);
    const std::vector<int> diff_dst = random_ints(s.n * s.k * oh * ow, -3, 3, rng);
    // The exact OIHW gradient and diff_bias.
    std::vector<int> sums(s.k * s.c * taps, 0), bias(s.k, 0);
    for (int64_t n = 0; n < s.n; ++n)
      for (int64_t o = 0; o < s.k; ++o)
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t x = 0; x < ow; ++x) {
            const int g = diff_dst[((n * s.k + o) * oh + y) * ow + x];
            bias[o] += g;
            for (int64_t ci = 0; ci < s.c; ++ci)
              for (int64_t r = 0; r < s.kh; ++r)
                for (int64_t t = 0; t < s.kw; ++t) {
                  const int64_t iy = y * s.stride + r - s.pad, ix = x * s.stride + t - s.pad;
                  if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                  sums[((o * s.c + ci) * s.kh + r) * s.kw + t] +=
                      g * src[((n * s.c + ci) * s.h + iy) * s.w + ix];
                }
          }
    for (const dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC}) {
      const bool nhwc = format == DLK_FORMAT_NHWC;
      dlk_conv2d_desc d = conv_desc(s, DLK_DTYPE_BF16);
      d.format = format;
      const auto layout = [&](const std::vector<int> &v, int64_t n, int64_t c, int64_t hw) {
        return nhwc ? to_nhwc(v, n, c, hw) : v;
      };
      const std::vector<uint16_t> src_bits = bf16_of(layout(src, s.n, s.c, s.h * s.w));
      const std::vector<uint16_t> dd_bits = bf16_of(layout(diff_dst, s.n, s.k, oh * ow));
      const std::vector<uint16_t> expected = bf16_of(layout(sums, s.k, s.c, taps));
      for (const int threads : {1, 2, 3}) {
        const Context ctx("avx512", threads);
        INFO(describe(s) << (nhwc ? " nhwc" : " nchw") << " threads " << threads);
        Buffer<uint16_t> src_buf(ctx, src_bits), dd(ctx, dd_bits);
        Buffer<uint16_t> diff_weights(ctx, std::vector<uint16_t>(expected.size(), 0xffff));
        Buffer<float> diff_bias(ctx, std::vector<float>(s.k, -1.0f));
        REQUIRE(dlk_conv2d_backward_weights(ctx.get(), &d, src_buf.data(), dd.data(),
                                            diff_weights.data(),
                                            diff_bias.data()) == DLK_STATUS_SUCCESS);
        CHECK(implementation(ctx) == "avx512:conv2d_amx_backward_weights_bf16");
        CHECK(diff_weights.values() == expected);
        CHECK(diff_bias.values() == cast<float>(bias));
      }
    }
  }
}

}  // namespace dlk::cpu_test
