// The backward passes are the gradients of the forward pass: for the loss
// L = sum(dst * r), diff_src = dlk_conv2d_backward_data(r) and diff_weights =
// dlk_conv2d_backward_weights(src, r) must match central differences of L
// computed with dlk_conv2d_forward, on every tier. Convolution is linear in src
// and in the weights, so the differences are exact up to f32 rounding; pooling
// is checked the same way where it is differentiable (no ties, no NaN).
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {
namespace {

std::vector<float> random_values(int64_t count, std::mt19937 &rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(count));
  for (float &x : v) x = u(rng);
  return v;
}

double dot(const std::vector<float> &a, const std::vector<float> &b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += double{a[i]} * b[i];
  return s;
}

struct ConvCase {
  dlk_format format;
  int64_t n, c, h, w, k, kh, kw, stride, pad, dilation, groups;
};

// Odd sizes, stride past the kernel, padding, dilation, groups and depthwise;
// at least 32 output channels per group (backward data's pixel-major column
// matrix) with rows of more than 32 pixels and more than 128 taps (col2im's
// blocks), strides 1 to 3, channels in several chunks of 32 (backward data
// splits them).
constexpr ConvCase kConvCases[] = {
    {DLK_FORMAT_NCHW, 2, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 4, 9, 8, 6, 3, 2, 3, 2, 1, 2},
    {DLK_FORMAT_NCHW, 1, 2, 9, 9, 3, 3, 3, 2, 2, 2, 1},
    {DLK_FORMAT_NCHW, 2, 4, 5, 7, 4, 3, 3, 1, 1, 1, 4},
    {DLK_FORMAT_NHWC, 2, 3, 7, 6, 4, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NHWC, 1, 6, 6, 5, 6, 1, 7, 1, 3, 1, 3},
    {DLK_FORMAT_NCHW, 1, 5, 6, 6, 7, 1, 1, 1, 0, 1, 1},
    {DLK_FORMAT_NCHW, 1, 3, 5, 37, 32, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 16, 6, 70, 34, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 4, 7, 36, 64, 2, 3, 3, 2, 2, 2},
    {DLK_FORMAT_NHWC, 1, 16, 6, 35, 33, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 70, 4, 34, 32, 3, 3, 1, 1, 1, 1},
    // 1x1 without padding, straight on the GEMM: NHWC, and NCHW with enough
    // pixels; stride 1 and 2, groups.
    {DLK_FORMAT_NHWC, 2, 6, 5, 7, 4, 1, 1, 1, 0, 1, 2},
    {DLK_FORMAT_NHWC, 1, 5, 9, 8, 6, 1, 1, 2, 0, 1, 1},
    {DLK_FORMAT_NCHW, 2, 4, 24, 24, 6, 1, 1, 1, 0, 1, 2},
    {DLK_FORMAT_NCHW, 1, 3, 45, 46, 5, 1, 1, 2, 0, 1, 1},
    // The edges of a blocked kernel (issue 26): channels 15, 17, 31, 33 as
    // inputs and outputs, rows one above a register tile of 14, 16, 28, 32,
    // stride 2, 1x1, padding wider than the kernel, groups, depthwise.
    {DLK_FORMAT_NCHW, 1, 15, 4, 17, 17, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NHWC, 1, 17, 4, 15, 15, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 31, 3, 29, 33, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NHWC, 1, 33, 4, 33, 31, 1, 1, 2, 0, 1, 1},
    {DLK_FORMAT_NCHW, 1, 17, 3, 15, 16, 3, 3, 1, 4, 1, 1},
    {DLK_FORMAT_NCHW, 1, 34, 3, 17, 66, 3, 3, 1, 1, 1, 2},
    {DLK_FORMAT_NHWC, 1, 33, 5, 17, 33, 3, 3, 2, 1, 1, 33},
    // LeNet-5's convolutions (the AVX-512 tier's direct kernels for few
    // channels, padded and not).
    {DLK_FORMAT_NCHW, 2, 1, 28, 28, 6, 5, 5, 1, 2, 1, 1},
    {DLK_FORMAT_NCHW, 2, 6, 14, 14, 16, 5, 5, 1, 0, 1, 1},
    // Backward data on the wide-row kernel (f32 NCHW stride 1, 16 or more
    // channels, 4 or more output channels): padding 1 and none (turned: 1, 2).
    {DLK_FORMAT_NCHW, 2, 17, 5, 21, 4, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 17, 4, 20, 9, 3, 3, 1, 0, 1, 1},
    // Backward weights on the channel-block kernel (f32 NCHW, more than 16
    // output channels, kw 3, 5 or 7, 128 output pixels and more): blocks of
    // 32 and 1 channels, stride 2 over two images, ResNet-50 conv1's 7x7/2.
    {DLK_FORMAT_NCHW, 1, 5, 12, 12, 33, 3, 3, 1, 1, 1, 1},
    {DLK_FORMAT_NCHW, 2, 3, 17, 16, 40, 3, 3, 2, 1, 1, 1},
    {DLK_FORMAT_NCHW, 1, 3, 23, 21, 24, 7, 7, 2, 3, 1, 1},
    // The wide-row forward at stride 2 (its phase planes): 5x5 with padding
    // 3, an odd padded width (27).
    {DLK_FORMAT_NCHW, 1, 6, 30, 21, 20, 5, 5, 2, 3, 1, 1},
};

struct Conv {
  dlk_conv2d_desc d;
  int64_t oh = 0, ow = 0;
  explicit Conv(const ConvCase &c) {
    dlk_conv2d_desc_init(&d, DLK_DTYPE_F32, c.n, c.c, c.h, c.w, c.k, c.kh, c.kw);
    d.format = c.format;
    d.stride_h = d.stride_w = c.stride;
    d.pad_h = d.pad_w = c.pad;
    d.dilation_h = d.dilation_w = c.dilation;
    d.groups = c.groups;
    REQUIRE(dlk_conv2d_output_shape(&d, &oh, &ow) == DLK_STATUS_SUCCESS);
  }
  int64_t src_size() const { return d.n * d.c * d.h * d.w; }
  int64_t dst_size() const { return d.n * d.k * oh * ow; }
  int64_t weights_size() const { return d.k * d.c / d.groups * d.kh * d.kw; }
};

// L(src, weights) = sum(forward(src, weights) * r).
double conv_loss(const Context &ctx, const Conv &conv, const std::vector<float> &src,
                 const std::vector<float> &weights, const std::vector<float> &r) {
  Buffer<float> s(ctx, src), w(ctx, weights), dst(ctx, std::vector<float>(r.size()));
  REQUIRE(dlk_conv2d_forward(ctx.get(), &conv.d, s.data(), w.data(), nullptr, dst.data()) ==
          DLK_STATUS_SUCCESS);
  return dot(dst.values(), r);
}

// Checks gradient[i] against the central difference of loss along element i,
// for a spread of i.
template <class Loss>
void check_gradient(const std::vector<float> &x, const std::vector<float> &gradient, Loss loss) {
  const float h = 0.25f;
  for (size_t i = 0; i < x.size(); i += 1 + x.size() / 23) {
    std::vector<float> plus = x, minus = x;
    plus[i] += h, minus[i] -= h;
    const double difference = (loss(plus) - loss(minus)) / (2.0 * h);
    INFO("element " << i);
    CHECK(gradient[i] == Approx(difference).margin(1e-4).epsilon(1e-4));
  }
}

}  // namespace

TEST_CASE("conv2d backward passes match finite differences of the forward on every tier",
          "[cpu][conv2d][gradient]") {
  std::mt19937 rng(7);
  for (const std::string &isa : cpu_tiers()) {
    Context ctx(isa);
    for (const ConvCase &c : kConvCases) {
      const Conv conv(c);
      INFO(isa << " case: c=" << c.c << " h=" << c.h << " w=" << c.w << " k=" << c.k << " kernel="
                << c.kh << "x" << c.kw << " stride=" << c.stride << " pad=" << c.pad
                << " dilation=" << c.dilation << " groups=" << c.groups
                << (c.format == DLK_FORMAT_NHWC ? " nhwc" : " nchw"));
      const std::vector<float> src = random_values(conv.src_size(), rng);
      const std::vector<float> weights = random_values(conv.weights_size(), rng);
      const std::vector<float> r = random_values(conv.dst_size(), rng);
      Buffer<float> s(ctx, src), w(ctx, weights), dd(ctx, r);
      Buffer<float> diff_src(ctx, std::vector<float>(src.size(), NAN));
      Buffer<float> diff_weights(ctx, std::vector<float>(weights.size(), NAN));
      REQUIRE(dlk_conv2d_backward_data(ctx.get(), &conv.d, dd.data(), w.data(), diff_src.data()) ==
              DLK_STATUS_SUCCESS);
      REQUIRE(dlk_conv2d_backward_weights(ctx.get(), &conv.d, s.data(), dd.data(),
                                          diff_weights.data(), nullptr) == DLK_STATUS_SUCCESS);
      check_gradient(src, diff_src.values(),
                     [&](const std::vector<float> &x) { return conv_loss(ctx, conv, x, weights, r); });
      check_gradient(weights, diff_weights.values(),
                     [&](const std::vector<float> &x) { return conv_loss(ctx, conv, src, x, r); });
    }
  }
}

TEST_CASE("pool2d backward matches finite differences of the forward on every tier",
          "[cpu][pool2d][gradient]") {
  std::mt19937 rng(11);
  for (const std::string &isa : cpu_tiers()) {
    Context ctx(isa);
    for (dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC})
      for (dlk_pool_kind kind : {DLK_POOL_MAX, DLK_POOL_AVG_INCLUDE_PADDING, DLK_POOL_AVG_EXCLUDE_PADDING}) {
        dlk_pool2d_desc d;
        dlk_pool2d_desc_init(&d, kind, DLK_DTYPE_F32, 2, 3, 9, 8, 3, 3);
        d.format = format;
        d.stride_h = d.stride_w = 2;
        d.pad_h = d.pad_w = 1;
        int64_t oh = 0, ow = 0;
        REQUIRE(dlk_pool2d_output_shape(&d, &oh, &ow) == DLK_STATUS_SUCCESS);
        INFO(isa << " kind " << kind << (format == DLK_FORMAT_NHWC ? " nhwc" : " nchw"));
        const std::vector<float> src = random_values(d.n * d.c * d.h * d.w, rng);
        const std::vector<float> r = random_values(d.n * d.c * oh * ow, rng);
        const auto loss = [&](const std::vector<float> &x) {
          Buffer<float> s(ctx, x), dst(ctx, r);
          REQUIRE(dlk_pool2d_forward(ctx.get(), &d, s.data(), dst.data(), nullptr) == DLK_STATUS_SUCCESS);
          return dot(dst.values(), r);
        };
        Buffer<float> s(ctx, src), dst(ctx, r), dd(ctx, r);
        Buffer<int32_t> argmax(ctx, std::vector<int32_t>(r.size(), -1));
        const bool max = kind == DLK_POOL_MAX;
        REQUIRE(dlk_pool2d_forward(ctx.get(), &d, s.data(), dst.data(), max ? argmax.data() : nullptr) ==
                DLK_STATUS_SUCCESS);
        Buffer<float> diff_src(ctx, std::vector<float>(src.size(), NAN));
        REQUIRE(dlk_pool2d_backward(ctx.get(), &d, dd.data(), max ? argmax.data() : nullptr,
                                    diff_src.data()) == DLK_STATUS_SUCCESS);
        // Max pooling is piecewise linear: a small step keeps every window's maximum
        // where it is (uniform data has no ties).
        const std::vector<float> g = diff_src.values();
        const float h = max ? 1e-3f : 0.25f;
        for (size_t i = 0; i < src.size(); i += 1 + src.size() / 31) {
          std::vector<float> plus = src, minus = src;
          plus[i] += h, minus[i] -= h;
          INFO("element " << i);
          CHECK(g[i] == Approx((loss(plus) - loss(minus)) / (2.0 * h)).margin(2e-3).epsilon(1e-3));
        }
      }
  }
}

}  // namespace dlk::cpu_test
