// Error feedback: residual_new = (input + residual_old) - decode(encode(...)),
// bit for bit, and over T steps the decoded messages plus the final residual sum
// to the inputs.
#include <catch2/catch.hpp>

#include <cmath>

#include "codec_test_support.hpp"

using namespace codec_test;

namespace {

std::vector<dlk_codec_params> feedback_configurations() {
  std::vector<dlk_codec_params> all;
  for (const auto algorithm : kAlgorithms) all.push_back(dlk::compress::params(algorithm));
  dlk_codec_params sampled = dlk::compress::params(DLK_CODEC_TOPK);
  sampled.topk_selection = DLK_CODEC_TOPK_SAMPLED;
  all.push_back(sampled);
  for (const auto algorithm : {DLK_CODEC_INT8, DLK_CODEC_INT4}) {
    dlk_codec_params stochastic = dlk::compress::params(algorithm);
    stochastic.rounding = DLK_CODEC_ROUND_STOCHASTIC;
    stochastic.seed = 42;
    all.push_back(stochastic);
  }
  return all;
}

std::string name_of(const dlk_codec_params &p) {
  std::string name = dlk_compress_algorithm_name(p.algorithm);
  if (p.topk_selection == DLK_CODEC_TOPK_SAMPLED && p.algorithm == DLK_CODEC_TOPK)
    name += " sampled";
  if (p.rounding == DLK_CODEC_ROUND_STOCHASTIC) name += " stochastic";
  return name;
}

}  // namespace

TEST_CASE("the new residual is v minus the decoded message, bit for bit",
          "[compression][error_feedback]") {
  const size_t n = 100000 + 5;
  for (dlk_codec_params p : feedback_configurations()) {
    std::vector<float> residual = gaussian(n, 11, 0.1f);
    for (uint64_t step = 0; step < 3; ++step) {
      p.step = step;
      const auto x = gaussian(n, 12 + static_cast<uint32_t>(step));
      std::vector<float> v(n);
      for (size_t i = 0; i < n; ++i) v[i] = x[i] + residual[i];
      const auto message = dlk::compress::encode(p, x.data(), residual.data(), n);
      const auto d = decode(message, n);
      for (size_t i = 0; i < n; ++i) {
        INFO(name_of(p) << " step " << step << " i=" << i);
        REQUIRE(residual[i] == v[i] - d[i]);
      }
    }
  }
}

TEST_CASE("over T steps, decoded messages plus the final residual sum to the inputs",
          "[compression][error_feedback]") {
  const size_t n = 20000 + 3;
  const int steps = 40;
  for (dlk_codec_params p : feedback_configurations()) {
    std::vector<float> residual(n, 0.0f);
    std::vector<double> inputs(n, 0.0), decoded(n, 0.0);
    for (int t = 0; t < steps; ++t) {
      p.step = static_cast<uint64_t>(t);
      const auto x = gaussian(n, 100 + static_cast<uint32_t>(t));
      const auto message = dlk::compress::encode(p, x.data(), residual.data(), n);
      const auto d = decode(message, n);
      for (size_t i = 0; i < n; ++i) {
        inputs[i] += x[i];
        decoded[i] += d[i];
      }
    }
    double worst = 0;
    for (size_t i = 0; i < n; ++i)
      worst = std::max(worst, std::fabs(decoded[i] + residual[i] - inputs[i]));
    INFO(name_of(p) << ": largest |sum decoded + residual - sum inputs| = " << worst);
    // Each step adds a few float roundings of values of order 1-10.
    CHECK(worst < 1e-4 * steps);
  }
}

TEST_CASE("without a residual the input is encoded as is", "[compression][error_feedback]") {
  const size_t n = 4099;
  const auto x = gaussian(n, 13);
  for (const auto algorithm : kAlgorithms) {
    const dlk_codec_params p = dlk::compress::params(algorithm);
    std::vector<float> zero(n, 0.0f);
    const auto with_zero_residual = dlk::compress::encode(p, x.data(), zero.data(), n);
    const auto without = dlk::compress::encode(p, x.data(), nullptr, n);
    CHECK(with_zero_residual == without);
  }
}
