// The max-pooling rules of dlk.h by hand, on every tier: the first maximum in
// row-major window order wins ties; a NaN anywhere in a window is its maximum
// and its first NaN the argmax (PyTorch propagates NaN the same way); padding
// never takes part. Long rows exercise the vectorized runs, short ones the edges.
#include <catch2/catch.hpp>
#include <cmath>
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

}  // namespace

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
