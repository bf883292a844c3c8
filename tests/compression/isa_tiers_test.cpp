// Every ISA tier this CPU has (avx512, avx2, scalar) produces the same messages,
// residuals and decoded outputs, bit for bit, special values included.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "codec_test_support.hpp"

using namespace codec_test;

namespace {

// Gaussian values with the awkward ones mixed in: +-0, +-inf, NaN, subnormals,
// values at fp16/bf16 rounding ties, fp16 overflow. One NaN only: when an
// addition meets two NaNs, which payload the result keeps is not specified (the
// compiler may swap the operands of +); the NaN payload paths with one NaN are
// covered by the bit-pattern test below.
std::vector<float> awkward(size_t n, uint32_t seed) {
  auto x = gaussian(n, seed);
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY,
                            std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::denorm_min(), -1e-40f, 1e-30f,
                            65520.0f, -65519.0f, 1.0009765625f /* fp16 tie */,
                            1.00390625f /* bf16 tie */, 3e38f, 6e-8f, -2.98e-8f};
  std::mt19937 gen(seed);
  for (size_t i = 0; i < n / 50; ++i) x[gen() % n] = specials[gen() % std::size(specials)];
  return x;
}

struct Result {
  std::vector<uint8_t> message;
  std::vector<float> residual, decoded, accumulated;
};

Result run(const dlk_codec_params &p, const std::vector<float> &x,
           const std::vector<float> *residual) {
  const size_t n = x.size();
  Result r;
  if (residual) r.residual = *residual;
  r.message = dlk::compress::encode(p, x.data(), residual ? r.residual.data() : nullptr, n);
  r.decoded = decode(r.message, n);
  r.accumulated = gaussian(n, 99);
  dlk::compress::decode_add(r.message, r.accumulated.data(), n);
  return r;
}

bool same_bits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), 4 * a.size()) == 0);
}

std::vector<dlk_codec_params> configurations() {
  std::vector<dlk_codec_params> all;
  for (const auto algorithm : kAlgorithms) {
    dlk_codec_params p = dlk::compress::params(algorithm);
    all.push_back(p);
    if (algorithm == DLK_CODEC_ONEBIT || algorithm == DLK_CODEC_INT8 ||
        algorithm == DLK_CODEC_INT4) {
      p.block_size = 16;
      all.push_back(p);
      p.block_size = 48;
      all.push_back(p);
    }
    if (algorithm == DLK_CODEC_INT8 || algorithm == DLK_CODEC_INT4) {
      p.rounding = DLK_CODEC_ROUND_STOCHASTIC;
      p.seed = 99;
      p.step = uint64_t(1) << 40;
      p.rank = 3;
      all.push_back(p);
    }
    if (algorithm == DLK_CODEC_TOPK) {
      p.topk_selection = DLK_CODEC_TOPK_SAMPLED;
      all.push_back(p);
      p.topk_fraction = 0.004;  // fewer than a vector at small n: the pass overflows and trims
      all.push_back(p);
    }
  }
  return all;
}

}  // namespace

TEST_CASE("all ISA tiers are bit-identical", "[compression][isa]") {
  const auto isas = available_isas();
  INFO("tiers on this CPU: " << isas.size());
  REQUIRE(!isas.empty());
  for (const size_t n : {1, 7, 16, 33, 1000, 4099, 300007}) {
    const auto x = awkward(n, static_cast<uint32_t>(n));
    const auto residual = awkward(n, static_cast<uint32_t>(n) + 1);
    for (const dlk_codec_params &p : configurations())
      for (const bool feedback : {false, true}) {
        std::vector<Result> results;
        for (const auto &isa : isas) {
          IsaGuard guard(isa);
          results.push_back(run(p, x, feedback ? &residual : nullptr));
        }
        for (size_t t = 1; t < isas.size(); ++t) {
          INFO(dlk_compress_algorithm_name(p.algorithm)
               << " block " << p.block_size << " rounding " << p.rounding << " selection "
               << p.topk_selection << " k " << p.topk_count << " n=" << n << " feedback "
               << feedback << ": " << isas[t] << " against " << isas[0]);
          CHECK(results[t].message == results[0].message);
          CHECK(same_bits(results[t].residual, results[0].residual));
          CHECK(same_bits(results[t].decoded, results[0].decoded));
          CHECK(same_bits(results[t].accumulated, results[0].accumulated));
        }
      }
  }
}

TEST_CASE("all ISA tiers decode every fp16 and bf16 code alike", "[compression][isa]") {
  const auto isas = available_isas();
  const size_t n = 65536;
  for (const auto algorithm : {DLK_CODEC_FP16, DLK_CODEC_BF16}) {
    // A valid message, then every 16-bit code in its payload.
    std::vector<float> zeros(n, 0.0f);
    auto message =
        dlk::compress::encode(dlk::compress::params(algorithm), zeros.data(), nullptr, n);
    for (size_t code = 0; code < n; ++code)
      put<uint16_t>(message, DLK_CODEC_HEADER_SIZE + 2 * code, static_cast<uint16_t>(code));
    std::vector<std::vector<float>> decoded;
    for (const auto &isa : isas) {
      IsaGuard guard(isa);
      decoded.push_back(decode(message, n));
    }
    for (size_t t = 1; t < isas.size(); ++t) {
      INFO(dlk_compress_algorithm_name(algorithm) << ": " << isas[t] << " against " << isas[0]);
      CHECK(same_bits(decoded[t], decoded[0]));
    }
  }
}

TEST_CASE("all ISA tiers encode every float bit pattern class alike", "[compression][isa]") {
  const auto isas = available_isas();
  // Exponents of every binade, random mantissas, both signs: every rounding path
  // of fp16 (normal, subnormal, overflow, NaN) and bf16.
  const size_t n = 1 << 18;
  std::vector<float> x(n);
  std::mt19937 gen(5);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t bits = (gen() & 0x807FFFFFu) | (static_cast<uint32_t>(i % 256) << 23);
    std::memcpy(&x[i], &bits, 4);
  }
  for (const auto algorithm : {DLK_CODEC_FP16, DLK_CODEC_BF16}) {
    std::vector<Result> results;
    const std::vector<float> residual(n, 0.0f);
    for (const auto &isa : isas) {
      IsaGuard guard(isa);
      results.push_back(run(dlk::compress::params(algorithm), x, &residual));
    }
    for (size_t t = 1; t < isas.size(); ++t) {
      INFO(dlk_compress_algorithm_name(algorithm) << ": " << isas[t] << " against " << isas[0]);
      CHECK(results[t].message == results[0].message);
      CHECK(same_bits(results[t].residual, results[0].residual));
    }
  }
}

TEST_CASE("decodes large enough to stream their stores give the same bits, aligned or not",
          "[compression][isa]") {
  // 50 MiB of output: above the size from which decode writes with non-temporal
  // stores (full, aligned vectors only); the scalar tier always stores plainly.
  const size_t n = size_t(50) << 18;
  const auto x = gaussian(n, 5);
  std::vector<float> storage(n + 32);
  const auto base = reinterpret_cast<uintptr_t>(storage.data());
  float *aligned = storage.data() + (64 - base % 64) % 64 / sizeof(float);
  for (const auto algorithm : kAlgorithms) {
    const auto message = dlk::compress::encode(dlk::compress::params(algorithm), x.data(), nullptr, n);
    std::vector<float> expected;
    {
      IsaGuard guard("scalar");
      expected = decode(message, n);
    }
    for (const auto &isa : available_isas()) {
      IsaGuard guard(isa);
      for (float *out : {aligned, aligned + 1}) {
        INFO(dlk_compress_algorithm_name(algorithm) << " on " << isa << ", output "
                                                    << (out == aligned ? "64-byte aligned" : "4 bytes past it"));
        std::fill(out, out + n, -1.0f);
        dlk::compress::decode(message, out, n);
        CHECK(std::memcmp(out, expected.data(), 4 * n) == 0);
      }
    }
  }
}
