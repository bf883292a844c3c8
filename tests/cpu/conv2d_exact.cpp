#include "tests/cpu/conv2d_exact.hpp"

#include <catch2/catch.hpp>
#include <cmath>

namespace dlk::cpu_test {

dlk_conv2d_desc conv_desc(const ConvShape &s, dlk_dtype type) {
  dlk_conv2d_desc d;
  dlk_conv2d_desc_init(&d, type, s.n, s.c, s.h, s.w, s.k, s.kh, s.kw);
  d.stride_h = d.stride_w = s.stride;
  d.pad_h = d.pad_w = s.pad;
  d.dilation_h = d.dilation_w = s.dilation;
  d.groups = s.groups;
  return d;
}

std::string describe(const ConvShape &s) {
  return " n " + std::to_string(s.n) + " c " + std::to_string(s.c) + " h " + std::to_string(s.h) +
         " w " + std::to_string(s.w) + " k " + std::to_string(s.k) + " kernel " +
         std::to_string(s.kh) + "x" + std::to_string(s.kw) + " stride " +
         std::to_string(s.stride) + " pad " + std::to_string(s.pad) + " dilation " +
         std::to_string(s.dilation) + " groups " + std::to_string(s.groups);
}

std::vector<int64_t> exact_backward_data(const dlk_conv2d_desc &d, int64_t oh, int64_t ow,
                                         const std::vector<int> &diff_dst, const std::vector<int> &weights) {
  const int64_t cg = d.c / d.groups, kg = d.k / d.groups;
  std::vector<int64_t> out(static_cast<size_t>(d.n * d.c * d.h * d.w), 0);
  for (int64_t i = 0; i < d.n; ++i)
    for (int64_t o = 0; o < d.k; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          const int64_t g = o / kg, dd = diff_dst[((i * d.k + o) * oh + y) * ow + x];
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t r = 0; r < d.kh; ++r)
              for (int64_t q = 0; q < d.kw; ++q) {
                const int64_t iy = y * d.stride_h - d.pad_h + r * d.dilation_h;
                const int64_t ix = x * d.stride_w - d.pad_w + q * d.dilation_w;
                if (iy < 0 || iy >= d.h || ix < 0 || ix >= d.w) continue;
                out[((i * d.c + g * cg + ci) * d.h + iy) * d.w + ix] +=
                    dd * weights[((o * cg + ci) * d.kh + r) * d.kw + q];
              }
        }
  return out;
}

std::vector<int64_t> exact_forward(const dlk_conv2d_desc &d, int64_t oh, int64_t ow,
                                   const std::vector<int> &src, const std::vector<int> &weights,
                                   int zero) {
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  const int64_t cg = d.c / d.groups, kg = d.k / d.groups;
  std::vector<int64_t> out(d.n * d.k * oh * ow);
  for (int64_t i = 0; i < d.n; ++i)
    for (int64_t o = 0; o < d.k; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          int64_t sum = 0;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t r = 0; r < d.kh; ++r)
              for (int64_t q = 0; q < d.kw; ++q) {
                const int64_t iy = y * d.stride_h - d.pad_h + r * d.dilation_h;
                const int64_t ix = x * d.stride_w - d.pad_w + q * d.dilation_w;
                if (iy < 0 || iy >= d.h || ix < 0 || ix >= d.w) continue;
                const int64_t c = o / kg * cg + ci;
                const int64_t si = nhwc ? ((i * d.h + iy) * d.w + ix) * d.c + c
                                        : ((i * d.c + c) * d.h + iy) * d.w + ix;
                const int64_t wi = nhwc ? ((o * d.kh + r) * d.kw + q) * cg + ci
                                        : ((o * cg + ci) * d.kh + r) * d.kw + q;
                sum += int64_t{src[si] - zero} * weights[wi];
              }
          out[nhwc ? ((i * oh + y) * ow + x) * d.k + o
                   : ((i * d.k + o) * oh + y) * ow + x] = sum;
        }
  return out;
}

std::vector<uint16_t> to_bf16(const std::vector<int> &v) {
  std::vector<uint16_t> out;
  for (int x : v) out.push_back(bf16_bits(static_cast<float>(x)));
  return out;
}

void check_exact_backward_data(const Context &ctx, const dlk_conv2d_desc &d,
                               const std::vector<int> &diff_dst, const std::vector<int> &weights,
                               const std::vector<int64_t> &sums) {
  if (d.src_type == DLK_DTYPE_F32) {
    Buffer<float> dd(ctx, cast<float>(diff_dst)), w(ctx, cast<float>(weights));
    Buffer<float> diff_src(ctx, std::vector<float>(sums.size(), NAN));
    REQUIRE(dlk_conv2d_backward_data(ctx.get(), &d, dd.data(), w.data(), diff_src.data()) ==
            DLK_STATUS_SUCCESS);
    CHECK(diff_src.values() == cast<float>(sums));
    return;
  }
  const auto bits = [&](int64_t v) {
    return d.src_type == DLK_DTYPE_F16 ? f16_bits(v) : bf16_bits(static_cast<float>(v));
  };
  std::vector<uint16_t> dd_bits, w_bits, expected;
  for (const int v : diff_dst) dd_bits.push_back(bits(v));
  for (const int v : weights) w_bits.push_back(bits(v));
  for (const int64_t v : sums) expected.push_back(bits(v));
  Buffer<uint16_t> dd(ctx, dd_bits), w(ctx, w_bits);
  Buffer<uint16_t> diff_src(ctx, std::vector<uint16_t>(sums.size(), 0xffff));
  REQUIRE(dlk_conv2d_backward_data(ctx.get(), &d, dd.data(), w.data(), diff_src.data()) ==
          DLK_STATUS_SUCCESS);
  CHECK(diff_src.values() == expected);
}

GradientCase gradient_case(const ConvShape &s, std::mt19937 &rng, int range) {
  GradientCase k;
  k.d = conv_desc(s, DLK_DTYPE_F32);
  REQUIRE(dlk_conv2d_output_shape(&k.d, &k.oh, &k.ow) == DLK_STATUS_SUCCESS);
  const int64_t cg = s.c / s.groups, kg = s.k / s.groups, taps = cg * s.kh * s.kw;
  k.src = random_ints(static_cast<size_t>(s.n * s.c * s.h * s.w), -range, range, rng);
  k.weights = random_ints(static_cast<size_t>(s.k * taps), -range, range, rng);
  k.dy = random_ints(static_cast<size_t>(s.n * s.k * k.oh * k.ow), -range, range, rng);
  k.diff_src = cast<float>(exact_backward_data(k.d, k.oh, k.ow, k.dy, k.weights));
  k.diff_weights.assign(k.weights.size(), 0.0f);
  k.diff_bias.assign(static_cast<size_t>(s.k), 0.0f);
  for (int64_t i = 0; i < s.n; ++i)
    for (int64_t o = 0; o < s.k; ++o)
      for (int64_t y = 0; y < k.oh; ++y)
        for (int64_t x = 0; x < k.ow; ++x) {
          const int g = k.dy[static_cast<size_t>(((i * s.k + o) * k.oh + y) * k.ow + x)];
          k.diff_bias[static_cast<size_t>(o)] += static_cast<float>(g);
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t r = 0; r < s.kh; ++r)
              for (int64_t q = 0; q < s.kw; ++q) {
                const int64_t iy = y * s.stride - s.pad + r * s.dilation;
                const int64_t ix = x * s.stride - s.pad + q * s.dilation;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                const auto si =
                    static_cast<size_t>(((i * s.c + o / kg * cg + ci) * s.h + iy) * s.w + ix);
                const auto wi = static_cast<size_t>(((o * cg + ci) * s.kh + r) * s.kw + q);
                k.diff_weights[wi] += static_cast<float>(g * k.src[si]);
              }
        }
  return k;
}


void check_exact_backward_weights(const Context &ctx, const dlk_conv2d_desc &d,
                                  const std::vector<int> &src, const std::vector<int> &dy,
                                  const std::vector<float> &expected, float *diff_bias) {
  if (d.src_type == DLK_DTYPE_F32) {
    Buffer<float> x(ctx, cast<float>(src)), y(ctx, cast<float>(dy));
    Buffer<float> diff_weights(ctx, std::vector<float>(expected.size(), NAN));
    REQUIRE(dlk_conv2d_backward_weights(ctx.get(), &d, x.data(), y.data(), diff_weights.data(),
                                        diff_bias) == DLK_STATUS_SUCCESS);
    CHECK(diff_weights.values() == expected);
    return;
  }
  const auto bits = [&](float v) {
    return d.src_type == DLK_DTYPE_F16 ? f16_bits(static_cast<int64_t>(v)) : bf16_bits(v);
  };
  std::vector<uint16_t> x_bits, y_bits, expected_bits;
  for (const int v : src) x_bits.push_back(bits(static_cast<float>(v)));
  for (const int v : dy) y_bits.push_back(bits(static_cast<float>(v)));
  for (const float v : expected) expected_bits.push_back(bits(v));
  Buffer<uint16_t> x(ctx, x_bits), y(ctx, y_bits);
  Buffer<uint16_t> diff_weights(ctx, std::vector<uint16_t>(expected.size(), 0xffff));
  REQUIRE(dlk_conv2d_backward_weights(ctx.get(), &d, x.data(), y.data(), diff_weights.data(),
                                      diff_bias) == DLK_STATUS_SUCCESS);
  CHECK(diff_weights.values() == expected_bits);
}

}  // namespace dlk::cpu_test
