// Decoders against truncated, corrupt and hostile messages: each is an error
// with a message naming the fault, and the output is left untouched.
#include <catch2/catch.hpp>

#include <string>

#include "codec_test_support.hpp"

using namespace codec_test;
namespace wire = dlk::codec::wire;

namespace {

constexpr float kSentinel = -777.0f;

std::vector<uint8_t> valid_message(dlk_codec_algorithm algorithm, size_t n) {
  dlk_codec_params p = dlk::compress::params(algorithm);
  if (p.block_size) p.block_size = 32;
  p.topk_count = n / 4;
  const auto x = gaussian(n, 41);
  return dlk::compress::encode(p, x.data(), nullptr, n);
}

// Decodes `message` as an n-element buffer with both decoders; each must fail
// with `status` and a message containing `needle`, leaving the output as it was.
void expect_rejected(const std::vector<uint8_t> &message, size_t n, dlk_codec_status status,
                     const std::string &needle) {
  for (const bool add : {false, true}) {
    std::vector<float> out(n, kSentinel);
    const dlk_codec_status got =
        add ? dlk_compress_decode_add(message.data(), message.size(), out.data(), n)
            : dlk_compress_decode(message.data(), message.size(), out.data(), n);
    const std::string error = dlk_compress_last_error();
    INFO((add ? "decode_add" : "decode") << ": " << error);
    CHECK(got == status);
    CHECK(error.find(needle) != std::string::npos);
    bool untouched = true;
    for (const float v : out) untouched = untouched && v == kSentinel;
    CHECK(untouched);
  }
}

}  // namespace

TEST_CASE("every truncation of a message is rejected", "[compression][hostile]") {
  const size_t n = 100;
  for (const auto algorithm : kAlgorithms) {
    const auto message = valid_message(algorithm, n);
    for (size_t size = 0; size < message.size(); ++size) {
      const std::vector<uint8_t> truncated(message.begin(), message.begin() + size);
      INFO(dlk_compress_algorithm_name(algorithm) << " truncated to " << size);
      expect_rejected(truncated, n, DLK_CODEC_CORRUPT_MESSAGE,
                      size < 32 ? "shorter than the 32-byte header" : "payload bytes");
    }
    auto longer = message;
    longer.push_back(0);
    expect_rejected(longer, n, DLK_CODEC_CORRUPT_MESSAGE, "the buffer holds");
  }
}

TEST_CASE("header faults are named", "[compression][hostile]") {
  const size_t n = 100;
  const auto good = valid_message(DLK_CODEC_INT8, n);

  auto m = good;
  m[0] = 'X';
  expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "wrong magic");

  m = good;
  put<uint16_t>(m, wire::kOffsetVersion, 2);
  expect_rejected(m, n, DLK_CODEC_UNSUPPORTED, "version 2 is newer");
  put<uint16_t>(m, wire::kOffsetVersion, 0);
  reseal(m);
  expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "version 0");

  m = good;
  m[wire::kOffsetElementCount] ^= 1;  // not resealed
  expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "checksum");

  m = good;
  m[wire::kOffsetFlags] = 1;
  reseal(m);
  expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "flags");

  for (const uint8_t algorithm : {0, 7, 255}) {
    m = good;
    m[wire::kOffsetAlgorithm] = algorithm;
    reseal(m);
    expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "unknown algorithm");
  }
}

TEST_CASE("element counts that overflow or disagree are rejected", "[compression][hostile]") {
  const size_t n = 100;
  for (const auto algorithm : kAlgorithms) {
    const auto good = valid_message(algorithm, n);
    INFO(dlk_compress_algorithm_name(algorithm));
    for (const uint64_t count : {~uint64_t(0), uint64_t(1) << 63, (uint64_t(1) << 48) + 1}) {
      auto m = good;
      put<uint64_t>(m, wire::kOffsetElementCount, count);
      reseal(m);
      expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "exceeds the limit of 2^48");
    }
    // A count the payload cannot hold (topk: more pairs than elements).
    auto m = good;
    put<uint64_t>(m, wire::kOffsetElementCount, algorithm == DLK_CODEC_TOPK ? 10 : 1000);
    reseal(m);
    expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE,
                    algorithm == DLK_CODEC_TOPK ? "pairs for 10 elements" : "need");
    // A valid message for another size than the caller's buffer.
    expect_rejected(good, n - 1, DLK_CODEC_INVALID_ARGUMENT, "the message holds 100 elements");
  }
}

TEST_CASE("payload sizes that lie are rejected", "[compression][hostile]") {
  const size_t n = 100;
  for (const auto algorithm : kAlgorithms) {
    const auto good = valid_message(algorithm, n);
    INFO(dlk_compress_algorithm_name(algorithm));
    for (const uint64_t claimed : {uint64_t(0), good.size() - 32 + 8, ~uint64_t(0)}) {
      auto m = good;
      put<uint64_t>(m, wire::kOffsetPayloadSize, claimed);
      reseal(m);
      expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "payload bytes");
    }
    // Header and buffer agree, but the algorithm's layout needs another size
    // (any whole number of pairs is a valid topk layout).
    if (algorithm == DLK_CODEC_TOPK) continue;
    auto m = good;
    m.resize(m.size() - 8);
    put<uint64_t>(m, wire::kOffsetPayloadSize, m.size() - 32);
    reseal(m);
    expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "need");
  }
}

TEST_CASE("block sizes outside the rules are rejected", "[compression][hostile]") {
  const size_t n = 100;
  for (const auto algorithm : {DLK_CODEC_ONEBIT, DLK_CODEC_INT8, DLK_CODEC_INT4}) {
    const auto good = valid_message(algorithm, n);
    for (const uint32_t block : {0u, 8u, 17u, (1u << 24) + 16, ~0u}) {
      auto m = good;
      put<uint32_t>(m, wire::kOffsetBlockSize, block);
      reseal(m);
      INFO(dlk_compress_algorithm_name(algorithm) << " block " << block);
      expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "block size");
    }
  }
  for (const auto algorithm : {DLK_CODEC_TOPK, DLK_CODEC_FP16, DLK_CODEC_BF16}) {
    auto m = valid_message(algorithm, n);
    put<uint32_t>(m, wire::kOffsetBlockSize, 16);
    reseal(m);
    expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "has no blocks");
  }
}

TEST_CASE("padding bits after the last element must be zero", "[compression][hostile]") {
  const size_t n = 101;  // onebit: 5 bits used in the last byte; int4: 1 nibble
  for (const auto algorithm : {DLK_CODEC_ONEBIT, DLK_CODEC_INT4}) {
    auto m = valid_message(algorithm, n);
    m.back() |= 0x80;
    expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "padding bits");
  }
}

TEST_CASE("topk indices out of range, repeated or decreasing are rejected",
          "[compression][hostile]") {
  const size_t n = 100;
  const auto good = valid_message(DLK_CODEC_TOPK, n);  // 25 pairs
  const size_t first = DLK_CODEC_HEADER_SIZE;
  auto index = [&](std::vector<uint8_t> &m, size_t j) -> uint32_t {
    return get<uint32_t>(m, first + 4 * j);
  };

  auto m = good;
  put<uint32_t>(m, first + 4 * 24, 100);
  expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "out of range");
  put<uint32_t>(m, first + 4 * 24, ~0u);
  expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "out of range");

  m = good;
  put<uint32_t>(m, first + 4 * 5, index(m, 4));
  expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "strictly increasing");

  m = good;
  put<uint32_t>(m, first + 4 * 5, index(m, 4) - 1);
  expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "strictly increasing");

  m = good;
  m.resize(m.size() - 4);
  put<uint64_t>(m, wire::kOffsetPayloadSize, m.size() - 32);
  reseal(m);
  expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "whole number of 8-byte");

  m = good;
  put<uint64_t>(m, wire::kOffsetElementCount, (uint64_t(1) << 32) + 1);
  reseal(m);
  expect_rejected(m, n, DLK_CODEC_CORRUPT_MESSAGE, "exceeds topk's 2^32");
}

TEST_CASE("a single flipped bit anywhere is an error or a valid decode, never a crash",
          "[compression][hostile]") {
  const size_t n = 40;
  for (const auto algorithm : kAlgorithms) {
    const auto good = valid_message(algorithm, n);
    for (size_t bit = 0; bit < 8 * good.size(); ++bit) {
      auto m = good;
      m[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      std::vector<float> out(n);
      const dlk_codec_status status = dlk_compress_decode(m.data(), m.size(), out.data(), n);
      // Header bits are covered by the checksum; payload bits are data, or a
      // structural field that the decoder checks.
      if (bit < 8 * DLK_CODEC_HEADER_SIZE) {
        INFO(dlk_compress_algorithm_name(algorithm) << " header bit " << bit);
        CHECK(status != DLK_CODEC_SUCCESS);
      } else {
        CHECK((status == DLK_CODEC_SUCCESS || status == DLK_CODEC_CORRUPT_MESSAGE));
      }
    }
  }
}
