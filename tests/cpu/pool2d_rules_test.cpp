// The max-pooling rules of dlk.h by hand, on every tier: the first maximum in
// row-major window order wins ties; a NaN anywhere in a window is its maximum
// and its first NaN the argmax (PyTorch propagates NaN the same way); padding
// never takes part. Long rows exercise the vectorized runs, short ones the edges.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {
namespace {

struct MaxResult {
  std::vector<float> dst;
  std::vector<int32_t> argmax;
};

// 1 x 1 x 1 x w row, window 1 x k, stride k, no padding; NCHW or NHWC alike.
MaxResult max_row(const Context &ctx, const std::vector<float> &row, int64_t k, int64_t pad = 0) {
  dlk_pool2d_desc d;
  dlk_pool2d_desc_init(&d, DLK_POOL_MAX, DLK_DTYPE_F32, 1, 1, 1, static_cast<int64_t>(row.size()), 1, k);
  d.pad_w = pad;
  int64_t oh = 0, ow = 0;
  REQUIRE(dlk_pool2d_output_shape(&d, &oh, &ow) == DLK_STATUS_SUCCESS);
  Buffer<float> src(ctx, row), dst(ctx, std::vector<float>(ow, 0.0f));
  Buffer<int32_t> argmax(ctx, std::vector<int32_t>(ow, -1));
  REQUIRE(dlk_pool2d_forward(ctx.get(), &d, src.data(), dst.data(), argmax.data()) == DLK_STATUS_SUCCESS);
  return {dst.values(), argmax.values()};
}

struct Pooled {
  std::vector<float> dst;
  std::vector<int32_t> argmax;
};

// with_argmax false: max pooling without argmax (inference), which has kernels of its own.
Pooled pool_nchw(const Context &ctx, const dlk_pool2d_desc &d, const std::vector<float> &src,
                 bool with_argmax = true) {
  int64_t oh = 0, ow = 0;
  REQUIRE(dlk_pool2d_output_shape(&d, &oh, &ow) == DLK_STATUS_SUCCESS);
  const size_t outputs = static_cast<size_t>(d.n * d.c * oh * ow);
  Buffer<float> in(ctx, src), dst(ctx, std::vector<float>(outputs, 0.0f));
  Buffer<int32_t> argmax(ctx, std::vector<int32_t>(outputs, -1));
  const bool max = d.kind == DLK_POOL_MAX && with_argmax;
  REQUIRE(dlk_pool2d_forward(ctx.get(), &d, in.data(), dst.data(), max ? argmax.data() : nullptr) ==
          DLK_STATUS_SUCCESS);
  return {dst.values(), max ? argmax.values() : std::vector<int32_t>()};
}

std::vector<uint32_t> bits(const std::vector<float> &v) {
  std::vector<uint32_t> b(v.size());
  if (!v.empty()) std::memcpy(b.data(), v.data(), v.size() * sizeof(float));
  return b;
}

}  // namespace

// The f32 NCHW forward kernels of the vector tiers (16 outputs of a row per
// register, stride-2 windows from permuted loads, clipped windows as lane masks,
// 1 x 1 outputs with planes in the lanes, narrow outputs with rows in the
// lanes) against the scalar tier, bit for bit:
// values drawn from a few numbers, signed zeros, -inf and NaN, so windows tie,
// hold NaN after and before numbers, or hold nothing but -inf; rows long enough
// for full registers and tails, short rows, padding on every side.
TEST_CASE("max and average pooling forward: every tier bit-identical to the scalar tier",
          "[cpu][pool2d][tiers]") {
  struct Shape {
    int64_t n, c, h, w, kh, kw, stride_h, stride_w, pad_h, pad_w;
  };
  const Shape shapes[] = {
      {1, 3, 10, 37, 2, 2, 2, 2, 0, 0},  {2, 2, 11, 41, 3, 3, 2, 2, 1, 1}, {1, 2, 9, 35, 3, 3, 1, 1, 1, 1},
      {1, 3, 7, 7, 2, 2, 2, 2, 0, 0},    {2, 19, 7, 7, 7, 7, 1, 1, 0, 0},  {1, 3, 12, 50, 5, 4, 3, 3, 2, 2},
      {1, 2, 8, 33, 1, 3, 1, 2, 0, 1},   {1, 17, 5, 6, 5, 6, 2, 2, 2, 3},  {1, 2, 6, 70, 2, 5, 1, 2, 1, 2},
      {1, 1, 4, 200, 3, 3, 2, 2, 1, 1},
      // Output rows of up to 16: 16 planes in the lanes (VGG-16's pool5 shape first), blocks
      // of 16 planes and a last one of fewer, the whole plane in one band of rows and (pool4's
      // shape, 28 x 40, 30 x 40) in several, gaps between windows, padding.
      {1, 4, 14, 14, 2, 2, 2, 2, 0, 0},  {1, 3, 15, 13, 3, 3, 2, 2, 1, 1}, {2, 3, 9, 5, 3, 3, 3, 2, 1, 1},
      {1, 20, 14, 14, 2, 2, 2, 2, 0, 0}, {2, 33, 9, 11, 3, 3, 1, 1, 1, 1}, {1, 2, 40, 7, 3, 2, 1, 1, 1, 1},
      {1, 17, 28, 28, 2, 2, 2, 2, 0, 0}, {1, 3, 28, 40, 3, 3, 3, 3, 1, 1}, {1, 2, 30, 40, 2, 2, 3, 3, 1, 1},
  };
  const float palette[] = {1.0f, 2.0f, -1.0f, 0.0f, -0.0f, -INFINITY, NAN, -NAN, 2.0f, 1.0f};
  const std::vector<std::string> tiers = cpu_tiers();
  for (const dlk_pool_kind kind : {DLK_POOL_MAX, DLK_POOL_AVG_INCLUDE_PADDING, DLK_POOL_AVG_EXCLUDE_PADDING})
    for (const Shape &s : shapes) {
      dlk_pool2d_desc d;
      dlk_pool2d_desc_init(&d, kind, DLK_DTYPE_F32, s.n, s.c, s.h, s.w, s.kh, s.kw);
      d.stride_h = s.stride_h, d.stride_w = s.stride_w, d.pad_h = s.pad_h, d.pad_w = s.pad_w;
      std::mt19937 rng(static_cast<unsigned>(s.w * 31 + s.kw));
      std::vector<float> src(static_cast<size_t>(s.n * s.c * s.h * s.w));
      // Max: the palette (ties, zeros, -inf, NaN); average: numbers only.
      for (float &x : src)
        x = kind == DLK_POOL_MAX ? palette[rng() % 10] : static_cast<float>(rng() % 2001) / 7.0f - 140.0f;
      INFO("kind " << kind << ", " << s.n << "x" << s.c << "x" << s.h << "x" << s.w << " window " << s.kh
                   << "x" << s.kw << " stride " << s.stride_h << "," << s.stride_w << " pad " << s.pad_h
                   << "," << s.pad_w);
      const Context scalar("scalar");
      const Pooled want = pool_nchw(scalar, d, src);
      for (const std::string &isa : tiers) {
        INFO(isa);
        const Context ctx(isa);
        const Pooled got = pool_nchw(ctx, d, src);
        CHECK(bits(got.dst) == bits(want.dst));
        CHECK(got.argmax == want.argmax);
        if (kind == DLK_POOL_MAX) CHECK(bits(pool_nchw(ctx, d, src, false).dst) == bits(want.dst));
      }
    }
}

TEST_CASE("max pooling: NaN is the maximum, the first NaN the argmax; ties go to the first",
          "[cpu][pool2d][nan]") {
  for (const std::string &isa : cpu_tiers()) {
    INFO(isa);
    Context ctx(isa);
    // 100 windows of 4: the pattern repeats, so every lane position sees each case.
    std::vector<float> row;
    for (int i = 0; i < 25; ++i) {
      for (float v : {1.0f, NAN, 3.0f, NAN}) row.push_back(v);  // NaN after a number
      for (float v : {NAN, 5.0f, NAN, 2.0f}) row.push_back(v);  // NaN first
      for (float v : {2.0f, 7.0f, -1.0f, 7.0f}) row.push_back(v);  // a tie
      for (float v : {-INFINITY, -INFINITY, -INFINITY, -INFINITY}) row.push_back(v);
    }
    const MaxResult r = max_row(ctx, row, 4);
    REQUIRE(r.dst.size() == 100);
    for (int64_t o = 0; o < 100; o += 4) {
      CHECK(std::isnan(r.dst[o]));
      CHECK(r.argmax[o] == 4 * o + 1);
      CHECK(std::isnan(r.dst[o + 1]));
      CHECK(r.argmax[o + 1] == 4 * (o + 1));
      CHECK(r.dst[o + 2] == 7.0f);
      CHECK(r.argmax[o + 2] == 4 * (o + 2) + 1);
      CHECK(r.dst[o + 3] == -INFINITY);
      CHECK(r.argmax[o + 3] == 4 * (o + 3));
    }
    // Padding is not a candidate, even against all-negative data or NaN.
    const MaxResult p = max_row(ctx, {-3.0f, -2.0f, NAN}, 3, 1);
    REQUIRE(p.dst.size() == 1);
    CHECK(p.dst[0] == -2.0f);
    CHECK(p.argmax[0] == 1);
  }
}

}  // namespace dlk::cpu_test
