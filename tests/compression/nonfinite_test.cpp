// The rule for non-finite gradients (docs/compression.md): large finite values
// stay finite, an inf or NaN decodes to a non-finite value of its own sign (never
// a finite one, never the other sign), finite values of a block with an inf stay
// finite, and every tier gives the same bits.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "codec_test_support.hpp"

using namespace codec_test;

namespace {

const float kInf = std::numeric_limits<float>::infinity();

// Encodes (with a residual) and decodes on every tier; checks the tiers agree
// bit for bit and returns the decoded values and the residual.
std::pair<std::vector<float>, std::vector<float>> round_trip(const dlk_codec_params &p,
                                                             const std::vector<float> &x) {
  std::vector<uint8_t> first_message;
  std::vector<float> first_decoded, first_residual;
  for (const std::string &isa : available_isas()) {
    IsaGuard guard(isa);
    std::vector<float> residual(x.size(), 0.0f);
    const auto message = dlk::compress::encode(p, x.data(), residual.data(), x.size());
    const auto decoded = decode(message, x.size());
    if (first_message.empty()) {
      first_message = message;
      first_decoded = decoded;
      first_residual = residual;
    } else {
      INFO("tier " << isa);
      CHECK(message == first_message);
      CHECK(std::memcmp(decoded.data(), first_decoded.data(), 4 * x.size()) == 0);
      CHECK(std::memcmp(residual.data(), first_residual.data(), 4 * x.size()) == 0);
    }
  }
  return {first_decoded, first_residual};
}

}  // namespace

TEST_CASE("onebit: the mean of large finite values does not overflow", "[compression][nonfinite]") {
  for (const float magnitude : {4e35f, 3.4e38f}) {
    CAPTURE(magnitude);
    std::vector<float> x(2048, magnitude);
    for (size_t i = 1024; i < 2048; i += 2) x[i] = -magnitude;  // second block: both signs
    const auto [decoded, residual] = round_trip(dlk::compress::params(DLK_CODEC_ONEBIT), x);
    for (size_t i = 0; i < x.size(); ++i) {
      REQUIRE(std::isfinite(decoded[i]));
      REQUIRE(std::isfinite(residual[i]));
      CHECK(std::fabs(decoded[i] - x[i]) <= 1e-6 * magnitude);
    }
  }
}

TEST_CASE("onebit: inf and NaN stay non-finite with their sign", "[compression][nonfinite]") {
  std::vector<float> x = gaussian(2048, 3);
  x[5] = kInf;
  x[1500] = -kInf;
  const auto decoded = round_trip(dlk::compress::params(DLK_CODEC_ONEBIT), x).first;
  CHECK(decoded[5] == kInf);
  CHECK(decoded[1500] == -kInf);
  x[7] = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::isnan(round_trip(dlk::compress::params(DLK_CODEC_ONEBIT), x).first[7]));
}

TEST_CASE("int8/int4: inf decodes to inf of its sign, finite values stay finite",
          "[compression][nonfinite]") {
  for (const auto algorithm : {DLK_CODEC_INT8, DLK_CODEC_INT4}) {
    for (const bool stochastic : {false, true}) {
      CAPTURE(algorithm, stochastic);
      dlk_codec_params p = dlk::compress::params(algorithm);
      if (stochastic) p.rounding = DLK_CODEC_ROUND_STOCHASTIC;
      std::vector<float> x = gaussian(1000, 4);
      x[3] = kInf;
      x[300] = -kInf;
      // Huge finite values beside the inf: their codes before rounding are the largest a
      // finite value gets (about 2^-21), which a stochastic draw of 0 used to round to 1 (inf).
      x[4] = 3.0e38f;
      x[5] = -3.0e38f;
      const auto [decoded, residual] = round_trip(p, x);
      CHECK(decoded[3] == kInf);
      CHECK(decoded[300] == -kInf);
      const size_t block = p.block_size;
      for (size_t i = 0; i < x.size(); ++i)
        if (i != 3 && i != 300 && (i / block == 3 / block || i / block == 300 / block)) {
          REQUIRE(!std::isnan(decoded[i]));
          // Finite values of an inf block go to 0 and wait in the residual, in either rounding mode.
          CHECK(decoded[i] == 0.0f);
          CHECK(residual[i] == x[i]);
        }
      x[600] = std::numeric_limits<float>::quiet_NaN();
      CHECK(std::isnan(round_trip(p, x).first[600]));
    }
  }
}

TEST_CASE("int8/int4: finite blocks still decode within half a step", "[compression][nonfinite]") {
  const std::vector<float> x = gaussian(777, 5, 3.0f);
  for (const auto algorithm : {DLK_CODEC_INT8, DLK_CODEC_INT4}) {
    const dlk_codec_params p = dlk::compress::params(algorithm);
    const auto message = dlk::compress::encode(p, x.data(), nullptr, x.size());
    const auto decoded = decode(message, x.size());
    const dlk_codec_message_info info = dlk::compress::inspect(message.data(), message.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const float scale = get<float>(message, DLK_CODEC_HEADER_SIZE + 4 * (i / info.block_size));
      CHECK(std::fabs(decoded[i] - x[i]) <= 0.5f * scale * 1.0001f);
    }
  }
}

TEST_CASE("int8/int4 stochastic: no finite value of an inf block decodes to inf", "[compression][nonfinite]") {
  // Every block holds an inf and otherwise values near FLT_MAX of both signs, whose codes before
  // rounding are about +-2^-21: drawn for each of 2^22 elements, stochastic rounding away from 0
  // would happen about twice per sign (it did, before such blocks were rounded to nearest).
  std::vector<float> x(size_t{1} << 22);
  for (size_t i = 0; i < x.size(); ++i) x[i] = (i & 1) ? -3.4e38f : 3.4e38f;
  for (const auto algorithm : {DLK_CODEC_INT8, DLK_CODEC_INT4}) {
    CAPTURE(algorithm);
    dlk_codec_params p = dlk::compress::params(algorithm);
    p.rounding = DLK_CODEC_ROUND_STOCHASTIC;
    for (size_t i = 0; i < x.size(); i += p.block_size) x[i] = kInf;
    const std::vector<float> decoded = round_trip(p, x).first;
    size_t wrong = 0;
    for (size_t i = 0; i < x.size(); ++i)
      if (!std::isinf(x[i]) && decoded[i] != 0.0f) ++wrong;
    CHECK(wrong == 0);
  }
}
