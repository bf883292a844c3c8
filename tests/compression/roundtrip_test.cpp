// Encode then decode: the error bound of each algorithm, exact message sizes,
// and decode_add adding the decoded message.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "codec_test_support.hpp"

using namespace codec_test;

namespace {

constexpr size_t kSizes[] = {1, 15, 16, 17, 255, 1000, 4099, 65536 + 33};

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The documented payload sizes (docs/wire-format.md), written out independently.
uint64_t expected_size(const dlk_codec_params &p, uint64_t n, uint64_t k) {
  const uint64_t blocks = p.block_size ? ceil_div(n, p.block_size) : 0;
  switch (p.algorithm) {
    case DLK_CODEC_ONEBIT: return 32 + 8 * blocks + ceil_div(n, 8);
    case DLK_CODEC_INT8: return 32 + 4 * blocks + n;
    case DLK_CODEC_INT4: return 32 + 4 * blocks + ceil_div(n, 2);
    case DLK_CODEC_TOPK: return 32 + 8 * k;
    default: return 32 + 2 * n;
  }
}

float block_max_abs(const std::vector<float> &x, size_t begin, size_t end) {
  float m = 0;
  for (size_t i = begin; i < end; ++i) m = std::max(m, std::fabs(x[i]));
  return m;
}

}  // namespace

TEST_CASE("messages have the exact documented size", "[compression][roundtrip]") {
  for (const auto algorithm : kAlgorithms)
    for (const size_t n : kSizes) {
      const dlk_codec_params p = dlk::compress::params(algorithm);
      const auto x = gaussian(n, 1);
      const auto message = dlk::compress::encode(p, x.data(), nullptr, n);
      const uint64_t k = std::max<uint64_t>(1, std::llround(0.01 * n));
      INFO(dlk_compress_algorithm_name(algorithm) << " n=" << n);
      CHECK(message.size() == expected_size(p, n, k));
      CHECK(message.size() == dlk::compress::max_message_size(p, n));
    }
}

TEST_CASE("compression ratios of 1 Mi floats with the default parameters",
          "[compression][roundtrip]") {
  const size_t n = size_t(1) << 20;
  const auto x = gaussian(n, 2);
  auto ratio = [&](dlk_codec_algorithm algorithm) {
    const auto m = dlk::compress::encode(dlk::compress::params(algorithm), x.data(), nullptr, n);
    return 4.0 * n / static_cast<double>(m.size());
  };
  // 4 MiB of floats against header + payload.
  CHECK(ratio(DLK_CODEC_ONEBIT) == Approx(4194304.0 / (32 + 8 * 8192 + 131072)));  // 21.3x
  CHECK(ratio(DLK_CODEC_INT8) == Approx(4194304.0 / (32 + 4 * 4096 + 1048576)));   // 3.94x
  CHECK(ratio(DLK_CODEC_INT4) == Approx(4194304.0 / (32 + 4 * 8192 + 524288)));    // 7.53x
  CHECK(ratio(DLK_CODEC_FP16) == Approx(4194304.0 / (32 + 2097152)));              // 2.0x
  CHECK(ratio(DLK_CODEC_TOPK) == Approx(4194304.0 / (32 + 8 * 10486)));            // 50x
}

TEST_CASE("fp16 and bf16 round to nearest within half an ulp", "[compression][roundtrip]") {
  const size_t n = 4099;
  auto x = gaussian(n, 3, 100.0f);
  for (const auto &[algorithm, ulp] :
       {std::pair{DLK_CODEC_FP16, 0x1p-10}, std::pair{DLK_CODEC_BF16, 0x1p-7}}) {
    const auto d = decode(dlk::compress::encode(dlk::compress::params(algorithm), x.data(),
                                                nullptr, n), n);
    for (size_t i = 0; i < n; ++i) {
      if (std::fabs(x[i]) < 1e-3f) continue;  // fp16 subnormals have a coarser relative step
      const double exponent = std::floor(std::log2(std::fabs(static_cast<double>(x[i]))));
      INFO(dlk_compress_algorithm_name(algorithm) << " x=" << x[i] << " d=" << d[i]);
      REQUIRE(std::fabs(static_cast<double>(d[i]) - x[i]) <= std::ldexp(ulp, static_cast<int>(exponent)) / 2);
    }
  }
}

TEST_CASE("int8 and int4 are within half a quantization step", "[compression][roundtrip]") {
  for (const auto algorithm : {DLK_CODEC_INT8, DLK_CODEC_INT4})
    for (const auto rounding : {DLK_CODEC_ROUND_NEAREST_EVEN, DLK_CODEC_ROUND_STOCHASTIC})
      for (const size_t n : kSizes) {
        dlk_codec_params p = dlk::compress::params(algorithm);
        p.rounding = rounding;
        const double max_code = algorithm == DLK_CODEC_INT8 ? 127 : 7;
        // Stochastic rounding may land on either neighbour: a full step.
        const double steps = rounding == DLK_CODEC_ROUND_STOCHASTIC ? 1.0 : 0.5;
        const auto x = gaussian(n, 4);
        const auto d = decode(dlk::compress::encode(p, x.data(), nullptr, n), n);
        for (size_t b = 0; b < n; b += p.block_size) {
          const size_t end = std::min(n, b + p.block_size);
          const double scale = block_max_abs(x, b, end) / max_code;
          for (size_t i = b; i < end; ++i) {
            INFO(dlk_compress_algorithm_name(algorithm) << " rounding " << rounding << " i=" << i);
            REQUIRE(std::fabs(static_cast<double>(d[i]) - x[i]) <= steps * scale * (1 + 1e-5));
          }
        }
      }
}

TEST_CASE("onebit decodes to the root mean square of each sign group of a block",
          "[compression][roundtrip]") {
  for (const size_t n : kSizes) {
    dlk_codec_params p = dlk::compress::params(DLK_CODEC_ONEBIT);
    p.block_size = 64;
    auto x = gaussian(n, 5);
    for (size_t i = 0; i < n; i += 7) x[i] = std::fabs(x[i]) + 0.5f;  // blocks are not symmetric
    const auto d = decode(dlk::compress::encode(p, x.data(), nullptr, n), n);
    for (size_t b = 0; b < n; b += p.block_size) {
      const size_t end = std::min(n, b + p.block_size);
      double pos = 0, neg = 0;
      size_t positives = 0, negatives = 0;
      for (size_t i = b; i < end; ++i) {
        (x[i] < 0 ? neg : pos) += double(x[i]) * x[i];
        (x[i] < 0 ? negatives : positives) += 1;
      }
      for (size_t i = b; i < end; ++i) {
        const double level =
            x[i] < 0 ? -std::sqrt(neg / negatives) : std::sqrt(pos / positives);
        INFO("n=" << n << " i=" << i);
        REQUIRE(d[i] == Approx(level).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("onebit's level stays finite and right for values whose squares overflow or underflow",
          "[compression][roundtrip]") {
  dlk_codec_params p = dlk::compress::params(DLK_CODEC_ONEBIT);
  p.block_size = 64;
  for (const float scale : {3e37f, 1e-25f, 1e-40f}) {
    CAPTURE(scale);
    std::vector<float> x(64);
    for (size_t i = 0; i < x.size(); ++i) x[i] = (i % 3 == 0 ? -2.0f : 1.0f) * scale;
    const auto d = decode(dlk::compress::encode(p, x.data(), nullptr, x.size()), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      REQUIRE(std::isfinite(d[i]));
      REQUIRE(d[i] == Approx(x[i]).epsilon(1e-5));  // one magnitude per sign: the level is it
    }
  }
}

TEST_CASE("topk decodes the selected values and zero elsewhere", "[compression][roundtrip]") {
  const size_t n = 1000;
  dlk_codec_params p = dlk::compress::params(DLK_CODEC_TOPK);
  p.topk_count = 37;
  const auto x = gaussian(n, 6);
  const auto d = decode(dlk::compress::encode(p, x.data(), nullptr, n), n);
  size_t nonzero = 0;
  for (size_t i = 0; i < n; ++i) {
    if (d[i] != 0.0f) {
      CHECK(d[i] == x[i]);
      ++nonzero;
    }
  }
  CHECK(nonzero == 37);
}

TEST_CASE("decode_add adds the decoded message to the accumulator", "[compression][roundtrip]") {
  const size_t n = 4099;
  const auto x = gaussian(n, 7);
  for (const auto algorithm : kAlgorithms) {
    const auto message =
        dlk::compress::encode(dlk::compress::params(algorithm), x.data(), nullptr, n);
    const auto d = decode(message, n);
    std::vector<float> acc = gaussian(n, 8);
    const std::vector<float> before = acc;
    dlk::compress::decode_add(message, acc.data(), n);
    for (size_t i = 0; i < n; ++i) {
      INFO(dlk_compress_algorithm_name(algorithm) << " i=" << i);
      REQUIRE(acc[i] == before[i] + d[i]);
    }
  }
}

TEST_CASE("an empty buffer is a header-only message", "[compression][roundtrip]") {
  for (const auto algorithm : kAlgorithms) {
    const auto message =
        dlk::compress::encode(dlk::compress::params(algorithm), nullptr, nullptr, 0);
    CHECK(message.size() == DLK_CODEC_HEADER_SIZE);
    CHECK_NOTHROW(dlk::compress::decode(message, nullptr, 0));
    CHECK(dlk::compress::inspect(message.data(), message.size()).element_count == 0);
  }
}
