// topk: exactly k for the exact selection, at most k for the sampled one, and
// always the largest magnitudes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "codec_test_support.hpp"

using namespace codec_test;

namespace {

struct Selection {
  std::vector<uint32_t> indices;
  std::vector<float> values;
};

Selection pairs_of(const std::vector<uint8_t> &message) {
  const size_t pairs = (message.size() - DLK_CODEC_HEADER_SIZE) / 8;
  Selection s{std::vector<uint32_t>(pairs), std::vector<float>(pairs)};
  for (size_t j = 0; j < pairs; ++j) {
    s.indices[j] = get<uint32_t>(message, DLK_CODEC_HEADER_SIZE + 4 * j);
    s.values[j] = get<float>(message, DLK_CODEC_HEADER_SIZE + 4 * (pairs + j));
  }
  return s;
}

// Every selected magnitude is at least every unselected one.
void check_largest(const std::vector<float> &v, const Selection &s) {
  std::vector<bool> chosen(v.size(), false);
  float smallest_chosen = INFINITY;
  for (size_t j = 0; j < s.indices.size(); ++j) {
    REQUIRE(s.values[j] == v[s.indices[j]]);
    chosen[s.indices[j]] = true;
    smallest_chosen = std::min(smallest_chosen, std::fabs(s.values[j]));
  }
  float largest_other = 0;
  for (size_t i = 0; i < v.size(); ++i)
    if (!chosen[i]) largest_other = std::max(largest_other, std::fabs(v[i]));
  CHECK(smallest_chosen >= largest_other);
  CHECK(std::is_sorted(s.indices.begin(), s.indices.end()));
  CHECK(std::adjacent_find(s.indices.begin(), s.indices.end()) == s.indices.end());
}

dlk_codec_params topk(uint64_t k, dlk_codec_topk_selection selection) {
  dlk_codec_params p = dlk::compress::params(DLK_CODEC_TOPK);
  p.topk_count = k;
  p.topk_selection = selection;
  return p;
}

}  // namespace

TEST_CASE("exact topk returns exactly k, the largest", "[compression][topk]") {
  for (const size_t n : {1, 17, 1000, 100003, 1 << 20})
    for (const uint64_t k : {uint64_t(1), uint64_t(5), uint64_t(n / 100 + 1), uint64_t(n)}) {
      if (k > n) continue;
      const auto x = gaussian(n, 21);
      const auto s = pairs_of(dlk::compress::encode(topk(k, DLK_CODEC_TOPK_EXACT), x.data(),
                                                    nullptr, n));
      INFO("n=" << n << " k=" << k);
      REQUIRE(s.indices.size() == k);
      check_largest(x, s);
    }
}

TEST_CASE("k as a fraction rounds to nearest, at least 1", "[compression][topk]") {
  const size_t n = 1000;
  const auto x = gaussian(n, 22);
  dlk_codec_params p = dlk::compress::params(DLK_CODEC_TOPK);
  for (const auto &[fraction, k] : {std::pair{0.01, 10}, std::pair{0.0104, 10},
                                   std::pair{0.0106, 11}, std::pair{1e-9, 1}, std::pair{1.0, 1000}}) {
    p.topk_fraction = fraction;
    CHECK(pairs_of(dlk::compress::encode(p, x.data(), nullptr, n)).indices.size() ==
          static_cast<size_t>(k));
  }
}

TEST_CASE("exact topk breaks ties by the lower index", "[compression][topk]") {
  const size_t n = 1000;
  std::vector<float> x(n, 1.0f);
  for (size_t i = 0; i < n; i += 2) x[i] = -1.0f;
  x[700] = 2.0f;
  const auto s =
      pairs_of(dlk::compress::encode(topk(10, DLK_CODEC_TOPK_EXACT), x.data(), nullptr, n));
  const std::vector<uint32_t> expected = {0, 1, 2, 3, 4, 5, 6, 7, 8, 700};
  CHECK(s.indices == expected);
}

TEST_CASE("sampled topk returns at most k, the largest, and about k",
          "[compression][topk]") {
  for (const size_t n : {size_t(1) << 16, size_t(1) << 20, (size_t(1) << 22) + 77})
    for (const double fraction : {0.001, 0.01, 0.1}) {
      const auto k = static_cast<uint64_t>(std::llround(fraction * n));
      const auto x = gaussian(n, 23);
      const auto s = pairs_of(dlk::compress::encode(topk(k, DLK_CODEC_TOPK_SAMPLED), x.data(),
                                                    nullptr, n));
      INFO("n=" << n << " k=" << k << " selected " << s.indices.size());
      REQUIRE(s.indices.size() <= k);
      CHECK(s.indices.size() >= 0.75 * k);  // the sample estimates the threshold to a few %
      check_largest(x, s);
    }
}

TEST_CASE("sampled topk keeps the k largest when far more pass its threshold",
          "[compression][topk]") {
  // Mostly equal magnitudes: the sampled threshold is that magnitude, and nearly
  // every element passes it; the pass trims to k as it goes.
  const size_t n = size_t(1) << 20;
  std::vector<float> x(n, 0.5f);
  for (size_t i = 0; i < n; i += 1000) x[i] = 3.0f + static_cast<float>(i % 7);
  for (const uint64_t k : {uint64_t(3), uint64_t(100), uint64_t(5000)}) {
    std::vector<float> residual(n, 0.0f);
    const auto message = dlk::compress::encode(topk(k, DLK_CODEC_TOPK_SAMPLED), x.data(),
                                               residual.data(), n);
    const auto s = pairs_of(message);
    INFO("k=" << k);
    REQUIRE(s.indices.size() == k);
    check_largest(x, s);
    const auto d = decode(message, n);
    for (size_t i = 0; i < n; ++i) REQUIRE(residual[i] == x[i] - d[i]);
  }
}

TEST_CASE("topk ranks NaN above infinity and keeps the message within k",
          "[compression][topk]") {
  const size_t n = 64;
  std::vector<float> x(n, 1.0f);
  x[3] = NAN;
  x[9] = -INFINITY;
  x[40] = 7.0f;
  const auto s =
      pairs_of(dlk::compress::encode(topk(2, DLK_CODEC_TOPK_EXACT), x.data(), nullptr, n));
  CHECK(s.indices == std::vector<uint32_t>{3, 9});
}
