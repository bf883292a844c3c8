#include <catch2/catch.hpp>

#include <stdexcept>

#include "perf/common/stats.hpp"

using namespace dlk::perf;

TEST_CASE("median of an odd count is the middle sample", "[perf][stats]") {
  CHECK(median({3.0}) == 3.0);
  CHECK(median({5.0, 1.0, 3.0}) == 3.0);
  CHECK(median({9.0, 1.0, 8.0, 2.0, 7.0}) == 7.0);
}

TEST_CASE("median of an even count is the mean of the middle two", "[perf][stats]") {
  CHECK(median({4.0, 1.0}) == 2.5);
  CHECK(median({1.0, 100.0, 2.0, 3.0}) == 2.5);
  CHECK(median({2.0, 2.0, 2.0, 2.0}) == 2.0);
}

TEST_CASE("median ignores outliers", "[perf][stats]") {
  CHECK(median({1.0, 1.1, 0.9, 1000.0, 1.0}) == 1.0);
}

TEST_CASE("summary gives median, min, max and count", "[perf][stats]") {
  const Summary s = summarize({4.0, 2.0, 8.0, 6.0});
  CHECK(s.median == 5.0);
  CHECK(s.min == 2.0);
  CHECK(s.max == 8.0);
  CHECK(s.count == 4);
}

TEST_CASE("no samples is an error", "[perf][stats]") {
  CHECK_THROWS_AS(median({}), std::invalid_argument);
  CHECK_THROWS_AS(summarize({}), std::invalid_argument);
}
