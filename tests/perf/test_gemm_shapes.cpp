// The shape sets of `dlk-perf gemm` (perf/workloads/gemm_shapes.hpp).
#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>
#include <string>

#include "perf/workloads/gemm_shapes.hpp"

using namespace dlk::perf;

TEST_CASE("gemm shapes: every named set is non-empty, its shapes positive and tagged with it", "[gemm_shapes]") {
  size_t total = 0;
  for (const std::string &set : gemm_shape_set_names()) {
    const auto shapes = gemm_shape_set(set);
    INFO(set);
    CHECK_FALSE(shapes.empty());
    for (const GemmShape &s : shapes) {
      CHECK(s.set == set);
      CHECK(s.m > 0);
      CHECK(s.n > 0);
      CHECK(s.k > 0);
    }
    total += shapes.size();
  }
  CHECK(gemm_shape_set("all").size() == total);
}

TEST_CASE("gemm shapes: the sets the issue asks for are there", "[gemm_shapes]") {
  std::set<std::int64_t> square;
  for (const GemmShape &s : gemm_shape_set("square")) square.insert(s.m);
  CHECK(square == std::set<std::int64_t>{64, 128, 256, 512, 1024, 2048, 4096});
  bool m1 = false, n1 = false;
  for (const GemmShape &s : gemm_shape_set("skinny")) m1 = m1 || s.m == 1, n1 = n1 || s.n == 1;
  CHECK(m1);
  CHECK(n1);
  // ResNet-50's 3x3 of stage 3: 128 output channels, 28 x 28 pixels, 128 x 3 x 3 taps.
  bool res3 = false;
  for (const GemmShape &s : gemm_shape_set("resnet50")) res3 = res3 || (s.m == 128 && s.n == 784 && s.k == 1152);
  CHECK(res3);
}

TEST_CASE("gemm shapes: an unknown set is an error listing the valid ones", "[gemm_shapes]") {
  CHECK_THROWS_WITH(gemm_shape_set("cubes"),
                    "unknown shape set 'cubes'; valid: square, resnet50, transformer, skinny, small, primes, all");
}
