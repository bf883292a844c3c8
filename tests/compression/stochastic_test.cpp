// Stochastic rounding: unbiased over many draws, and reproducible for a given
// (seed, step, rank).
#include <catch2/catch.hpp>

#include <cmath>

#include "codec_test_support.hpp"

using namespace codec_test;

namespace {

// Blocks of 256 whose element 0 is max_code, so that the scale is exactly 1 and
// the other elements sit at +-fraction of a quantization step.
std::vector<float> steps_apart(float max_code, float fraction, size_t n) {
  std::vector<float> x(n, fraction);
  for (size_t i = 0; i < n; i += 256) x[i] = max_code;
  for (size_t i = 1; i < n; i += 2) x[i] = -fraction;
  return x;
}

}  // namespace

TEST_CASE("stochastic rounding is unbiased", "[compression][stochastic]") {
  const size_t n = 256 * 64;
  for (const auto &[algorithm, max_code] :
       {std::pair{DLK_CODEC_INT8, 127.0f}, std::pair{DLK_CODEC_INT4, 7.0f}})
    for (const float fraction : {0.3f, 0.5f, 0.9f}) {
      dlk_codec_params p = dlk::compress::params(algorithm);
      p.block_size = 256;
      p.rounding = DLK_CODEC_ROUND_STOCHASTIC;
      p.seed = 7;
      const auto x = steps_apart(max_code, fraction, n);
      double sum[2] = {0, 0};  // even (positive) and odd (negative) elements
      size_t draws[2] = {0, 0};
      for (uint64_t step = 0; step < 32; ++step) {
        p.step = step;
        const auto d = decode(dlk::compress::encode(p, x.data(), nullptr, n), n);
        for (size_t i = 1; i < n; ++i) {
          if (i % 256 == 0) continue;
          sum[i % 2] += d[i];
          draws[i % 2] += 1;
        }
      }
      // Each draw is 0 or 1 step: standard deviation sqrt(f (1 - f) / draws).
      const double sigma = std::sqrt(fraction * (1 - fraction) / draws[0]);
      INFO(dlk_compress_algorithm_name(algorithm) << " fraction " << fraction);
      CHECK(std::fabs(sum[0] / draws[0] - fraction) < 5 * sigma);
      CHECK(std::fabs(sum[1] / draws[1] + fraction) < 5 * sigma);
    }
}

TEST_CASE("round to nearest even is biased where stochastic rounding is not",
          "[compression][stochastic]") {
  const size_t n = 4096;
  const auto x = steps_apart(127.0f, 0.3f, n);
  dlk_codec_params p = dlk::compress::params(DLK_CODEC_INT8);
  p.block_size = 256;
  const auto d = decode(dlk::compress::encode(p, x.data(), nullptr, n), n);
  for (size_t i = 1; i < 256; ++i) CHECK(d[i] == 0.0f);
}

TEST_CASE("stochastic rounding is reproducible for a given seed, step and rank",
          "[compression][stochastic]") {
  const size_t n = 10000;
  const auto x = gaussian(n, 31);
  dlk_codec_params p = dlk::compress::params(DLK_CODEC_INT4);
  p.rounding = DLK_CODEC_ROUND_STOCHASTIC;
  p.seed = 1234;
  p.step = 5;
  p.rank = 2;
  const auto first = dlk::compress::encode(p, x.data(), nullptr, n);
  CHECK(dlk::compress::encode(p, x.data(), nullptr, n) == first);
  for (auto vary : {&dlk_codec_params::seed, &dlk_codec_params::step}) {
    dlk_codec_params q = p;
    q.*vary += 1;
    CHECK(dlk::compress::encode(q, x.data(), nullptr, n) != first);
  }
  dlk_codec_params other_rank = p;
  other_rank.rank = 3;
  CHECK(dlk::compress::encode(other_rank, x.data(), nullptr, n) != first);
}
