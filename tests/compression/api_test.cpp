// The C ABI's argument rules, the ISA selection, inspect, and the C++ wrapper.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "codec_test_support.hpp"

using namespace codec_test;

namespace {

void expect_invalid(dlk_codec_status status, const std::string &needle) {
  const std::string error = dlk_compress_last_error();
  INFO(error);
  CHECK(status == DLK_CODEC_INVALID_ARGUMENT);
  CHECK(error.find(needle) != std::string::npos);
}

}  // namespace

TEST_CASE("params_init fills the documented defaults", "[compression][api]") {
  CHECK(dlk::compress::params(DLK_CODEC_ONEBIT).block_size == 128);
  CHECK(dlk::compress::params(DLK_CODEC_INT8).block_size == 256);
  CHECK(dlk::compress::params(DLK_CODEC_INT4).block_size == 128);
  const dlk_codec_params topk = dlk::compress::params(DLK_CODEC_TOPK);
  CHECK(topk.block_size == 0);
  CHECK(topk.topk_selection == DLK_CODEC_TOPK_EXACT);
  CHECK(topk.topk_fraction == 0.01);
  dlk_codec_params p;
  expect_invalid(dlk_compress_params_init(&p, static_cast<dlk_codec_algorithm>(9)),
                 "argument 'algorithm'");
  expect_invalid(dlk_compress_params_init(nullptr, DLK_CODEC_INT8), "'params' must not be NULL");
}

TEST_CASE("encode checks every parameter", "[compression][api]") {
  const size_t n = 64;
  std::vector<float> x(n, 1.0f);
  std::vector<uint8_t> message(4096);
  size_t size = 0;
  auto encode = [&](const dlk_codec_params &p, uint64_t count = 64) {
    return dlk_compress_encode(&p, x.data(), nullptr, count, message.data(), message.size(),
                               &size);
  };
  for (const uint32_t block : {0u, 8u, 17u, (1u << 24) + 16}) {
    dlk_codec_params p = dlk::compress::params(DLK_CODEC_INT4);
    p.block_size = block;
    expect_invalid(encode(p), "params->block_size");
  }
  dlk_codec_params p = dlk::compress::params(DLK_CODEC_INT8);
  p.rounding = static_cast<dlk_codec_rounding>(5);
  expect_invalid(encode(p), "params->rounding");
  p = dlk::compress::params(DLK_CODEC_TOPK);
  p.topk_count = 65;
  expect_invalid(encode(p), "params->topk_count");
  p.topk_count = 0;
  for (const double fraction : {0.0, -0.5, 1.5, std::nan("")}) {
    p.topk_fraction = fraction;
    expect_invalid(encode(p), "params->topk_fraction");
  }
  p = dlk::compress::params(DLK_CODEC_TOPK);
  p.topk_selection = static_cast<dlk_codec_topk_selection>(2);
  expect_invalid(encode(p), "params->topk_selection");
  p = dlk::compress::params(DLK_CODEC_FP16);
  expect_invalid(encode(p, (uint64_t(1) << 48) + 1), "argument 'count'");
  p.algorithm = static_cast<dlk_codec_algorithm>(0);
  expect_invalid(encode(p), "params->algorithm");
}

TEST_CASE("encode checks its buffers and writes nothing on failure", "[compression][api]") {
  const size_t n = 64;
  std::vector<float> x(n, 1.0f), residual(n, 0.5f);
  const dlk_codec_params p = dlk::compress::params(DLK_CODEC_INT8);
  const size_t needed = dlk::compress::max_message_size(p, n);
  std::vector<uint8_t> message(needed, 0xAB);
  size_t size = 0;

  expect_invalid(dlk_compress_encode(&p, x.data(), residual.data(), n, message.data(), needed - 1,
                                     &size),
                 "this message may need");
  CHECK(message == std::vector<uint8_t>(needed, 0xAB));
  CHECK(residual == std::vector<float>(n, 0.5f));

  expect_invalid(dlk_compress_encode(&p, nullptr, nullptr, n, message.data(), needed, &size),
                 "'input' must not be NULL");
  expect_invalid(dlk_compress_encode(&p, x.data(), nullptr, n, nullptr, needed, &size),
                 "'message' must not be NULL");
  expect_invalid(dlk_compress_encode(&p, x.data(), nullptr, n, message.data(), needed, nullptr),
                 "'message_size' must not be NULL");
  const float *misaligned =
      reinterpret_cast<const float *>(reinterpret_cast<const char *>(x.data()) + 1);
  expect_invalid(dlk_compress_encode(&p, misaligned, nullptr, n - 1, message.data(), needed,
                                     &size),
                 "4-byte aligned");
  expect_invalid(dlk_compress_encode(&p, x.data(), x.data() + 8, n, message.data(), needed,
                                     &size),
                 "'residual' overlaps 'input'");
  expect_invalid(dlk_compress_encode(&p, x.data(), nullptr, n, x.data(), needed, &size),
                 "'message' overlaps 'input'");
}

TEST_CASE("decode checks its buffers", "[compression][api]") {
  const size_t n = 64;
  std::vector<float> x(n, 1.0f);
  auto message = dlk::compress::encode(dlk::compress::params(DLK_CODEC_FP16), x.data(), nullptr, n);
  expect_invalid(dlk_compress_decode(nullptr, message.size(), x.data(), n),
                 "'message' must not be NULL");
  expect_invalid(dlk_compress_decode(message.data(), message.size(), nullptr, n),
                 "'output' must not be NULL");
  expect_invalid(dlk_compress_decode_add(message.data(), message.size(), nullptr, n),
                 "'accumulator' must not be NULL");
  // The output laid over the message itself.
  std::vector<float> space(n + 64);
  std::memcpy(space.data(), message.data(), message.size());
  expect_invalid(dlk_compress_decode(space.data(), message.size(), space.data() + 1, n),
                 "overlaps 'message'");
}

TEST_CASE("inspect reads a header without the payload", "[compression][api]") {
  const size_t n = 1000;
  const auto x = gaussian(n, 51);
  dlk_codec_params p = dlk::compress::params(DLK_CODEC_ONEBIT);
  p.block_size = 64;
  const auto message = dlk::compress::encode(p, x.data(), nullptr, n);
  const dlk_codec_message_info info = dlk::compress::inspect(message.data(), 32);
  CHECK(info.algorithm == DLK_CODEC_ONEBIT);
  CHECK(info.format_version == DLK_CODEC_FORMAT_VERSION);
  CHECK(info.element_count == n);
  CHECK(info.block_size == 64);
  CHECK(info.payload_size == message.size() - 32);
  CHECK(info.message_size == message.size());
  CHECK_THROWS_AS(dlk::compress::inspect(message.data(), 31), dlk::compress::Error);
}

TEST_CASE("the ISA tier can be chosen, and bad choices are errors", "[compression][api]") {
  CHECK(dlk_compress_set_isa("scalar") == DLK_CODEC_SUCCESS);
  CHECK(dlk::compress::isa() == "scalar");
  expect_invalid(dlk_compress_set_isa("sse9"), "valid values: avx512, avx2, scalar");
  CHECK(dlk::compress::isa() == "scalar");  // a failed choice keeps the last one
  CHECK(dlk_compress_set_isa(nullptr) == DLK_CODEC_SUCCESS);
  const std::string best = dlk::compress::isa();
  CHECK((best == "avx512" || best == "avx2" || best == "scalar"));

  setenv("DLK_COMPRESS_ISA", "scalar", 1);
  CHECK(dlk_compress_set_isa(nullptr) == DLK_CODEC_SUCCESS);
  CHECK(dlk::compress::isa() == "scalar");

  setenv("DLK_COMPRESS_ISA", "fastest", 1);
  expect_invalid(dlk_compress_set_isa(nullptr), "DLK_COMPRESS_ISA");
  std::vector<float> x(16, 1.0f);
  try {
    dlk::compress::encode(dlk::compress::params(DLK_CODEC_FP16), x.data(), nullptr, 16);
    FAIL("expected dlk::compress::Error");
  } catch (const dlk::compress::Error &e) {
    CHECK(e.status() == DLK_CODEC_INVALID_ARGUMENT);
    CHECK(std::string(e.what()).find("'fastest'") != std::string::npos);
  }
  unsetenv("DLK_COMPRESS_ISA");
  CHECK(dlk_compress_set_isa(nullptr) == DLK_CODEC_SUCCESS);
  CHECK(dlk::compress::isa() == best);
}

// The rule every dlk variable follows (common/env_value.hpp), as libdlk applies it.
TEST_CASE("DLK_COMPRESS_ISA takes exact values only, empty is not unset, messages end with the valid values",
          "[compression][api][env]") {
  const std::string valid = "valid values: avx512, avx2, scalar";
  const std::string huge(100000, 'x');
  for (const std::string &value : {std::string(), std::string(" scalar"), std::string("scalar "),
                                  std::string("\tscalar"), std::string("SCALAR"), huge}) {
    INFO("DLK_COMPRESS_ISA='" << value.substr(0, 20) << "' (" << value.size() << " bytes)");
    setenv("DLK_COMPRESS_ISA", value.c_str(), 1);
    expect_invalid(dlk_compress_set_isa(nullptr), "argument 'DLK_COMPRESS_ISA'");
    const std::string error = dlk_compress_last_error();
    CHECK(error.size() < 300);
    CHECK(error.substr(error.size() - valid.size()) == valid);
  }
  expect_invalid(dlk_compress_set_isa(huge.c_str()), "argument 'isa'");
  const std::string error = dlk_compress_last_error();
  CHECK(error.size() < 300);
  CHECK(error.substr(error.size() - valid.size()) == valid);
  unsetenv("DLK_COMPRESS_ISA");
  CHECK(dlk_compress_set_isa(nullptr) == DLK_CODEC_SUCCESS);
}

TEST_CASE("names of statuses and algorithms", "[compression][api]") {
  CHECK(std::string(dlk_compress_status_name(DLK_CODEC_CORRUPT_MESSAGE)) == "corrupt_message");
  CHECK(std::string(dlk_compress_status_name(static_cast<dlk_codec_status>(42))) == "unknown");
  CHECK(std::string(dlk_compress_algorithm_name(DLK_CODEC_BF16)) == "bf16");
  CHECK(std::string(dlk_compress_algorithm_name(static_cast<dlk_codec_algorithm>(0))) ==
        "unknown");
}

TEST_CASE("a success clears the last error", "[compression][api]") {
  CHECK(dlk_compress_params_init(nullptr, DLK_CODEC_INT8) != DLK_CODEC_SUCCESS);
  CHECK(std::string(dlk_compress_last_error()).size() > 0);
  dlk_codec_params p;
  CHECK(dlk_compress_params_init(&p, DLK_CODEC_INT8) == DLK_CODEC_SUCCESS);
  CHECK(std::string(dlk_compress_last_error()).empty());
}

TEST_CASE("the header matches docs/wire-format.md's example", "[compression][api]") {
  const uint8_t check[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  CHECK(dlk::codec::crc32c(check, sizeof check) == 0xE3069283u);
  float x[20];
  for (int i = 0; i < 20; ++i) x[i] = static_cast<float>(i - 10);
  dlk_codec_params p = dlk::compress::params(DLK_CODEC_INT8);
  p.block_size = 16;
  const auto message = dlk::compress::encode(p, x, nullptr, 20);
  const std::vector<uint8_t> header = {
      0x44, 0x4C, 0x4B, 0x43, 0x01, 0x00, 0x03, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x1C, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0xE2, 0x22, 0x2C, 0xE4};
  REQUIRE(message.size() == 60);
  CHECK(std::vector<uint8_t>(message.begin(), message.begin() + 32) == header);
}
