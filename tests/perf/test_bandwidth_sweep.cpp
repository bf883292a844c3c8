#include <catch2/catch.hpp>

#include "perf/ceilings/bandwidth_sweep.hpp"

using namespace dlk::perf;

namespace {
constexpr size_t kKiB = 1024, kMiB = 1024 * 1024;
const CacheSizes kZen4{32 * kKiB, 1 * kMiB, 32 * kMiB};

std::vector<SweepPoint> sweep_of(const std::vector<std::pair<size_t, double>> &points) {
  std::vector<SweepPoint> s;
  for (auto [ws, gbs] : points) s.push_back({ws, gbs * 1e9, gbs * 1e9});
  return s;
}
}  // namespace

TEST_CASE("plateaus are runs of close points; transitions belong to none", "[perf][sweep]") {
  const auto sweep = sweep_of({{8 * kKiB, 400},   {16 * kKiB, 410}, {32 * kKiB, 395},  // L1
                               {64 * kKiB, 250},                                       // spill
                               {128 * kKiB, 200}, {256 * kKiB, 210}, {512 * kKiB, 205}, {1 * kMiB, 190},
                               {4 * kMiB, 100},   {8 * kMiB, 98},    {16 * kMiB, 95},
                               {64 * kMiB, 30},   {128 * kMiB, 28},  {256 * kMiB, 29}});
  const auto plateaus = find_plateaus(sweep);
  REQUIRE(plateaus.size() == 4);
  CHECK(plateaus[0].first == 0);
  CHECK(plateaus[0].last == 2);
  CHECK(plateaus[0].bytes_per_second == Approx(400e9));
  CHECK(plateaus[1].first == 4);
  CHECK(plateaus[1].last == 7);
  CHECK(plateaus[2].bytes_per_second == Approx(98e9));
  CHECK(plateaus[3].last == 13);
}

TEST_CASE("a curve without flat parts has no plateau", "[perf][sweep]") {
  std::vector<std::pair<size_t, double>> falling;
  double v = 400;
  for (size_t ws = 4 * kKiB; ws <= 64 * kMiB; ws *= 2, v *= 0.7) falling.push_back({ws, v});
  CHECK(find_plateaus(sweep_of(falling)).empty());
  CHECK(find_plateaus({}).empty());
}

TEST_CASE("working sets are named by the level that holds them", "[perf][sweep]") {
  CHECK(memory_level(32 * kKiB, 1, kZen4) == "L1");
  CHECK(memory_level(64 * kKiB, 2, kZen4) == "L1");  // 32 KiB per core
  CHECK(memory_level(64 * kKiB, 1, kZen4) == "L2");
  CHECK(memory_level(2 * kMiB, 2, kZen4) == "L2");
  CHECK(memory_level(32 * kMiB, 2, kZen4) == "L3");  // L3 is shared
  CHECK(memory_level(33 * kMiB, 2, kZen4) == "DRAM");
  CHECK(memory_level(2 * kMiB, 1, CacheSizes{32 * kKiB, 0, 0}) == "DRAM");
}

TEST_CASE("each level takes its longest plateau; a level without one says so", "[perf][sweep]") {
  const auto sweep = sweep_of({{8 * kKiB, 400}, {16 * kKiB, 410}, {24 * kKiB, 395},
                               {256 * kKiB, 300}, {512 * kKiB, 150}, {1 * kMiB, 80},
                               {4 * kMiB, 100}, {8 * kMiB, 98}, {16 * kMiB, 95},
                               {64 * kMiB, 30}, {128 * kMiB, 28}, {256 * kMiB, 29}});
  const auto levels = memory_level_ceilings(sweep, find_plateaus(sweep), 1, kZen4);
  REQUIRE(levels.size() == 4);
  CHECK(levels[0].level == "L1");
  CHECK(levels[0].found);
  CHECK(levels[0].working_set_max == 24 * kKiB);
  CHECK(levels[1].level == "L2");
  CHECK_FALSE(levels[1].found);
  CHECK(levels[2].found);
  CHECK(levels[2].plateau.bytes_per_second == Approx(98e9));
  CHECK(levels[3].level == "DRAM");
  CHECK(levels[3].found);
}

TEST_CASE("sweep working sets grow by sqrt 2 (at most 2 where pages round) per thread", "[perf][sweep]") {
  const auto sets = sweep_working_sets(64 * kMiB, 2);
  CHECK(sets.front() == 8 * kKiB);
  CHECK(sets.back() == 64 * kMiB);
  for (size_t i = 1; i < sets.size(); ++i) {
    CHECK(sets[i] % (2 * 4096) == 0);
    CHECK(sets[i] > sets[i - 1]);
    CHECK(static_cast<double>(sets[i]) / static_cast<double>(sets[i - 1]) <= 2.0);
  }
}
