#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "perf/common/report_table.hpp"

using namespace dlk::perf;

namespace {

ReportTable sample_table() {
  ReportTable t({{"impl", "impl", 1, 0},
                 {"shape", "shape", 1, 0, Show::text},
                 {"n", "n", 1, 0, Show::json},
                 {"flops_per_second", "GFLOP/s", 1e-9, 1},
                 {"ratio", "ratio", 1, 2}});
  t.add_row({std::string("dlk"), std::string("256x256x256"), std::int64_t{256}, 12.345e9, 0.0512});
  t.add_row({std::string("openblas"), std::string("256x256x256"), std::int64_t{256}, 241.0e9,
             Cell()});
  return t;
}

}  // namespace

TEST_CASE("text: aligned columns, scaled numbers, '-' for empty cells", "[perf][report]") {
  const std::string expected =
      "impl      shape        GFLOP/s  ratio\n"
      "dlk       256x256x256     12.3   0.05\n"
      "openblas  256x256x256    241.0      -\n";
  CHECK(sample_table().text() == expected);
}

TEST_CASE("json: raw values under their keys, in column order", "[perf][report]") {
  const auto j = sample_table().json();
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 2);
  CHECK(j[0].dump() ==
        R"({"impl":"dlk","n":256,"flops_per_second":12345000000.0,"ratio":0.0512})");
  CHECK(j[1]["ratio"].is_null());
  CHECK(j[1]["n"].is_number_integer());
  CHECK_FALSE(j[0].contains("shape"));
}

TEST_CASE("non-finite numbers are '-' in text and null in JSON", "[perf][report]") {
  ReportTable t({{"x", "x", 1, 1}});
  t.add_row({std::numeric_limits<double>::quiet_NaN()});
  t.add_row({std::numeric_limits<double>::infinity()});
  CHECK(t.text() == "x\n-\n-\n");
  CHECK(t.json()[0]["x"].is_null());
  CHECK(t.json()[1]["x"].is_null());
}

TEST_CASE("integers print as integers unless scaled", "[perf][report]") {
  ReportTable t({{"runs", "runs", 1, 0}, {"bytes", "MB", 1e-6, 1}});
  t.add_row({std::int64_t{7}, std::int64_t{3'000'000}});
  CHECK(t.text() == "runs   MB\n   7  3.0\n");
}

TEST_CASE("a row must have one cell per column", "[perf][report]") {
  ReportTable t({{"a", "a", 1, 0}, {"b", "b", 1, 0}});
  CHECK_THROWS_AS(t.add_row({std::int64_t{1}}), std::invalid_argument);
  CHECK(t.rows().empty());
  CHECK(t.text() == "a  b\n");
  CHECK(t.json().empty());
}
