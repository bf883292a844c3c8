// Max-pooling backward on every tier against the rule of dlk.h written out here
// as the plainest loop: diff_src starts at +0, and each output in turn, in
// increasing index, adds its gradient at its argmax. The vector tiers gather
// instead (each element collects from the outputs whose windows hold it), so
// the argmaxes come both from the windows and from anywhere in the plane (which
// dlk.h allows and the gather must notice), the gradients mix magnitudes (so
// the order of the additions shows), signed zeros and NaN; the shapes overlap
// windows, leave gaps between them, clip them with padding and reach more
// outputs per vector than the gather handles; planes small and large (the
// AVX-512 tier gathers only planes larger than its L1d).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {
namespace {

struct Shape {
  int64_t n, c, h, w, kh, kw, stride_h, stride_w, pad_h, pad_w;
};

// Element (image, channel, pixel) of a tensor of `plane` pixels a channel.
// The window of output (oy, ox) clipped to the image: rows [y0, y1), columns
// [x0, x1); for a pool2d descriptor or a test shape, which name their fields alike.
struct Window {
  int64_t y0, y1, x0, x1;
};
template <class Geometry>
Window clipped_window(const Geometry &g, int64_t oy, int64_t ox) {
  return {std::max<int64_t>(0, oy * g.stride_h - g.pad_h), std::min(g.h, oy * g.stride_h - g.pad_h + g.kh),
          std::max<int64_t>(0, ox * g.stride_w - g.pad_w), std::min(g.w, ox * g.stride_w - g.pad_w + g.kw)};
}

int64_t element(dlk_format format, int64_t c, int64_t plane, int64_t image, int64_t channel, int64_t pixel) {
  return format == DLK_FORMAT_NHWC ? (image * plane + pixel) * c + channel : (image * c + channel) * plane + pixel;
}

std::vector<float> scatter(const dlk_pool2d_desc &d, int64_t oh, int64_t ow, const std::vector<float> &diff_dst,
                           const std::vector<int32_t> &argmax) {
  std::vector<float> diff_src(static_cast<size_t>(d.n * d.c * d.h * d.w), 0.0f);
  for (int64_t i = 0; i < d.n; ++i)
    for (int64_t ch = 0; ch < d.c; ++ch)
      for (int64_t o = 0; o < oh * ow; ++o) {
        const int64_t out = element(d.format, d.c, oh * ow, i, ch, o);
        diff_src[element(d.format, d.c, d.h * d.w, i, ch, argmax[out])] += diff_dst[out];
      }
  return diff_src;
}

const Shape kShapes[] = {
    {2, 3, 10, 37, 2, 2, 2, 2, 0, 0},  {1, 2, 11, 41, 3, 3, 2, 2, 1, 1}, {1, 2, 9, 35, 3, 3, 1, 1, 1, 1},
    {1, 3, 14, 14, 2, 2, 2, 2, 0, 0},  {2, 19, 7, 7, 7, 7, 1, 1, 0, 0},  {1, 3, 12, 50, 5, 4, 3, 3, 2, 2},
    {1, 2, 8, 33, 1, 3, 1, 2, 0, 1},   {1, 2, 9, 40, 2, 2, 3, 3, 0, 0},  {1, 70, 6, 9, 3, 3, 2, 2, 1, 1},
    {1, 1, 4, 200, 3, 3, 2, 2, 1, 1},  {1, 2, 5, 60, 3, 21, 1, 1, 1, 10}, {1, 2, 5, 90, 2, 33, 1, 2, 0, 0},
    // Planes over 32 KiB, which the AVX-512 tier gathers (smaller ones it scatters).
    {1, 2, 96, 100, 2, 2, 2, 2, 0, 0}, {1, 1, 91, 97, 3, 3, 2, 2, 1, 1}, {1, 1, 100, 99, 2, 2, 3, 3, 0, 0},
    {1, 1, 90, 101, 3, 3, 1, 1, 1, 1}, {1, 1, 90, 100, 3, 21, 1, 1, 1, 10}, {1, 1, 90, 100, 2, 33, 1, 2, 0, 0},
    {1, 1, 95, 130, 5, 4, 3, 3, 2, 2},
};
std::vector<uint32_t> bits(const std::vector<float> &v) {
  std::vector<uint32_t> b(v.size());
  std::memcpy(b.data(), v.data(), v.size() * sizeof(float));
  return b;
}

}  // namespace

TEST_CASE("max pooling backward: every tier adds each output's gradient at its argmax, in output order",
          "[cpu][pool2d][backward]") {

  const float gradients[] = {1e8f, -1e8f, 1.0f, 3.25f, -0.0f, 0.0f, 0.1f, -7.5f, 2e-3f, -1.0f};
  const std::vector<std::string> tiers = cpu_tiers();
  for (const dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC})
    for (const bool anywhere : {false, true})
      for (const Shape &s : kShapes) {
        dlk_pool2d_desc d;
        dlk_pool2d_desc_init(&d, DLK_POOL_MAX, DLK_DTYPE_F32, s.n, s.c, s.h, s.w, s.kh, s.kw);
        d.format = format;
        d.stride_h = s.stride_h, d.stride_w = s.stride_w, d.pad_h = s.pad_h, d.pad_w = s.pad_w;
        int64_t oh = 0, ow = 0;
        REQUIRE(dlk_pool2d_output_shape(&d, &oh, &ow) == DLK_STATUS_SUCCESS);
        std::mt19937 rng(static_cast<unsigned>(s.w * 131 + s.kw * 7 + anywhere));
        const size_t outputs = static_cast<size_t>(s.n * s.c * oh * ow);
        std::vector<float> diff_dst(outputs);
        std::vector<int32_t> argmax(outputs);
        // Most gradients are numbers, one in 50 is a NaN: NaN sums must carry the same payload too.
        for (float &g : diff_dst) {
          const unsigned r = rng() % 500;
          g = r < 10 ? NAN : gradients[r % 10];
        }
        for (int64_t i = 0; i < s.n; ++i)
          for (int64_t ch = 0; ch < s.c; ++ch)
            for (int64_t oy = 0; oy < oh; ++oy)
              for (int64_t ox = 0; ox < ow; ++ox) {
                // A tap of the window clipped to the image; with `anywhere`, one output in
                // 40 points anywhere in its plane instead.
                const Window win = clipped_window(s, oy, ox);
                int64_t pixel = (win.y0 + static_cast<int64_t>(rng() % (win.y1 - win.y0))) * s.w + win.x0 +
                                static_cast<int64_t>(rng() % (win.x1 - win.x0));
                if (anywhere && rng() % 40 == 0) pixel = static_cast<int64_t>(rng() % (s.h * s.w));
                argmax[element(format, s.c, oh * ow, i, ch, oy * ow + ox)] = static_cast<int32_t>(pixel);
              }
        const std::vector<float> want = scatter(d, oh, ow, diff_dst, argmax);
        INFO((format == DLK_FORMAT_NHWC ? "NHWC " : "NCHW ")
             << (anywhere ? "argmax anywhere, " : "argmax in window, ") << s.n << "x" << s.c << "x" << s.h << "x"
             << s.w << " window " << s.kh << "x" << s.kw << " stride " << s.stride_h << "," << s.stride_w << " pad "
             << s.pad_h << "," << s.pad_w);
        for (const std::string &isa : tiers) {
          INFO(isa);
          const Context ctx(isa);
          Buffer<float> dd(ctx, diff_dst), ds(ctx, std::vector<float>(want.size(), 42.0f));
          Buffer<int32_t> am(ctx, argmax);
          REQUIRE(dlk_pool2d_backward(ctx.get(), &d, dd.data(), am.data(), ds.data()) == DLK_STATUS_SUCCESS);
          CHECK(bits(ds.values()) == bits(want));
        }
      }
}

// Average pooling backward on every tier against the rule written out as the
// plainest loop, bit for bit: diff_src starts at +0, and each output in turn, in
// increasing index, adds its share (its gradient divided, in f32, by its
// divisor) over its window clipped to the image. Gradients of many magnitudes,
// so that any other order of the additions shows in the last bit.
namespace {
std::vector<float> spread(const dlk_pool2d_desc &d, int64_t oh, int64_t ow, const std::vector<float> &diff_dst) {
  std::vector<float> diff_src(static_cast<size_t>(d.n * d.c * d.h * d.w), 0.0f);
  for (int64_t i = 0; i < d.n; ++i)
    for (int64_t ch = 0; ch < d.c; ++ch)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          const auto [y0, y1, x0, x1] = clipped_window(d, oy, ox);
          const int64_t divisor = d.kind == DLK_POOL_AVG_INCLUDE_PADDING ? d.kh * d.kw : (y1 - y0) * (x1 - x0);
          const float share =
              diff_dst[element(d.format, d.c, oh * ow, i, ch, oy * ow + ox)] / static_cast<float>(divisor);
          for (int64_t y = y0; y < y1; ++y)
            for (int64_t x = x0; x < x1; ++x) diff_src[element(d.format, d.c, d.h * d.w, i, ch, y * d.w + x)] += share;
        }
  return diff_src;
}
}  // namespace

TEST_CASE("average pooling backward: every tier adds each output's share over its window, in output order",
          "[cpu][pool2d][backward]") {
  const std::vector<std::string> tiers = cpu_tiers();
  for (const dlk_pool_kind kind : {DLK_POOL_AVG_INCLUDE_PADDING, DLK_POOL_AVG_EXCLUDE_PADDING})
    for (const dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC})
      for (const Shape &s : kShapes) {
        dlk_pool2d_desc d;
        dlk_pool2d_desc_init(&d, kind, DLK_DTYPE_F32, s.n, s.c, s.h, s.w, s.kh, s.kw);
        d.format = format;
        d.stride_h = s.stride_h, d.stride_w = s.stride_w, d.pad_h = s.pad_h, d.pad_w = s.pad_w;
        int64_t oh = 0, ow = 0;
        REQUIRE(dlk_pool2d_output_shape(&d, &oh, &ow) == DLK_STATUS_SUCCESS);
        std::mt19937 rng(static_cast<unsigned>(s.w * 17 + s.kh));
        std::vector<float> diff_dst(static_cast<size_t>(s.n * s.c * oh * ow));
        for (float &g : diff_dst) g = static_cast<float>(static_cast<int>(rng() % 20001) - 10000) / 3.0f;
        const std::vector<uint32_t> want = bits(spread(d, oh, ow, diff_dst));
        INFO((format == DLK_FORMAT_NHWC ? "NHWC " : "NCHW ") << "kind " << kind << ", " << s.n << "x" << s.c << "x"
                                                               << s.h << "x" << s.w << " window " << s.kh << "x" << s.kw
                                                               << " stride " << s.stride_h << "," << s.stride_w);
        for (const std::string &isa : tiers) {
          INFO(isa);
          const Context ctx(isa);
          Buffer<float> dd(ctx, diff_dst), ds(ctx, std::vector<float>(want.size(), 42.0f));
          REQUIRE(dlk_pool2d_backward(ctx.get(), &d, dd.data(), nullptr, ds.data()) == DLK_STATUS_SUCCESS);
          CHECK(bits(ds.values()) == want);
        }
      }
}

// An argmax outside its plane: INVALID_ARGUMENT naming argmax and the first bad
// element, diff_src untouched, on every tier and thread count; the tensor is
// scanned in pieces on the threads, and the bad indices lie in two of them.
TEST_CASE("max pooling backward: an argmax outside its plane is refused before anything is written",
          "[cpu][pool2d][backward]") {
  dlk_pool2d_desc d;
  dlk_pool2d_desc_init(&d, DLK_POOL_MAX, DLK_DTYPE_F32, 2, 40, 100, 100, 2, 2);
  const size_t outputs = 2 * 40 * 50 * 50;
  for (const dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC}) {
    d.format = format;
    std::vector<int32_t> argmax(outputs, 0);
    argmax[150001] = 10000;  // h * w: one past the plane
    argmax[70003] = -1;
    for (const std::string &isa : cpu_tiers())
      for (const int threads : {1, 2}) {
        INFO(isa << ", " << threads << " threads");
        const Context ctx(isa, threads);
        Buffer<float> dd(ctx, std::vector<float>(outputs, 1.0f)), ds(ctx, std::vector<float>(4 * outputs, 42.0f));
        Buffer<int32_t> am(ctx, argmax);
        CHECK(dlk_pool2d_backward(ctx.get(), &d, dd.data(), am.data(), ds.data()) == DLK_STATUS_INVALID_ARGUMENT);
        const std::string error = dlk_last_error();
        CHECK(error.find("argmax") != std::string::npos);
        CHECK(error.find("holds -1 at element 70003") != std::string::npos);
        CHECK(ds.values() == std::vector<float>(4 * outputs, 42.0f));
      }
  }
}

}  // namespace dlk::cpu_test
