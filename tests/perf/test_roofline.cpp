#include <catch2/catch.hpp>

#include <string>

#include "perf/ceilings/roofline.hpp"

using namespace dlk::perf;

namespace {
// 400 GFLOP/s and 40 GB/s: the ridge is at 10 FLOP/B.
const Roof kRoof{400e9, 40e9};
}  // namespace

TEST_CASE("intensity is flops per byte", "[perf][roofline]") {
  CHECK(Work{100, 50}.intensity() == 2.0);
  CHECK(Work{100, 0}.intensity() == 0.0);
}

TEST_CASE("the ridge is where the two ceilings meet", "[perf][roofline]") {
  CHECK(kRoof.ridge_intensity() == Approx(10.0));
  CHECK(kRoof.at(10.0) == Approx(400e9));
}

TEST_CASE("the roof is bandwidth-limited below the ridge, flat above", "[perf][roofline]") {
  CHECK(kRoof.at(0.25) == Approx(10e9));
  CHECK(kRoof.at(5.0) == Approx(200e9));
  CHECK(kRoof.at(10.0) == Approx(400e9));
  CHECK(kRoof.at(341.3) == Approx(400e9));
  CHECK(kRoof.at(0.0) == 0.0);
}

TEST_CASE("the bound is memory below the ridge and compute from it on", "[perf][roofline]") {
  CHECK(kRoof.bound(0.5) == Bound::memory);
  CHECK(kRoof.bound(9.99) == Bound::memory);
  CHECK(kRoof.bound(10.0) == Bound::compute);
  CHECK(kRoof.bound(100.0) == Bound::compute);
  CHECK(std::string(bound_name(Bound::memory)) == "memory");
  CHECK(std::string(bound_name(Bound::compute)) == "compute");
}

TEST_CASE("a point is placed against the roof at its intensity", "[perf][roofline]") {
  SECTION("compute-bound GEMM 1024: 2n^3 flops, 12n^2 bytes") {
    const double n = 1024;
    const Work gemm{2 * n * n * n, 12 * n * n};
    const RooflinePoint p = place_on_roof(gemm, gemm.flops / 100e9, kRoof);
    CHECK(p.intensity == Approx(n / 6));
    CHECK(p.rate == Approx(100e9));
    CHECK(p.roof == Approx(400e9));
    CHECK(p.percent_of_roof == Approx(25.0));
    CHECK(p.bound == Bound::compute);
  }
  SECTION("memory-bound op at 0.25 FLOP/B reaching 8 GFLOP/s") {
    const Work axpy{2e6, 8e6};
    const RooflinePoint p = place_on_roof(axpy, axpy.flops / 8e9, kRoof);
    CHECK(p.roof == Approx(10e9));
    CHECK(p.percent_of_roof == Approx(80.0));
    CHECK(p.bound == Bound::memory);
  }
}
