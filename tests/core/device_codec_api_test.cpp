// The device codecs' C entry points (include/dlk/dlk_device_codec.h) where no
// backend runs them: every argument and every rule of a received message is
// checked first, by libdlk_compress's own rules, and only then is the codec
// refused as unsupported. Runs on the cpu backend everywhere; the GPU side is
// tests/cuda/codec_device_test.cpp.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "dlk/dlk.h"
#include "dlk/dlk_compress.h"
#include "dlk/dlk_device_codec.h"

namespace {

class CpuContext {
 public:
  CpuContext() {
    dlk_context_options options;
    dlk_context_options_init(&options);
    options.backend = "cpu";
    REQUIRE(dlk_context_create(&context_, &options) == DLK_STATUS_SUCCESS);
  }
  ~CpuContext() { dlk_context_destroy(context_); }
  CpuContext(const CpuContext &) = delete;
  CpuContext &operator=(const CpuContext &) = delete;
  dlk_context_t get() const { return context_; }

 private:
  dlk_context_t context_ = nullptr;
};

dlk_codec_params params_for(dlk_codec_algorithm algorithm) {
  dlk_codec_params p;
  REQUIRE(dlk_compress_params_init(&p, algorithm) == DLK_CODEC_SUCCESS);
  return p;
}

std::vector<uint8_t> cpu_message(const dlk_codec_params &params, const std::vector<float> &input) {
  size_t capacity = 0, size = 0;
  REQUIRE(dlk_compress_max_message_size(&params, input.size(), &capacity) == DLK_CODEC_SUCCESS);
  std::vector<uint8_t> message(capacity);
  REQUIRE(dlk_compress_encode(&params, input.data(), nullptr, input.size(), message.data(), capacity, &size) ==
          DLK_CODEC_SUCCESS);
  message.resize(size);
  return message;
}

const dlk_codec_algorithm kAlgorithms[] = {DLK_CODEC_ONEBIT, DLK_CODEC_TOPK, DLK_CODEC_INT8,
                                           DLK_CODEC_INT4,   DLK_CODEC_FP16, DLK_CODEC_BF16};

}  // namespace

TEST_CASE("dlk_codec_max_message_size is libdlk_compress's", "[core][codec]") {
  for (const dlk_codec_algorithm a : kAlgorithms)
    for (const uint64_t count : {uint64_t(0), uint64_t(1), uint64_t(17), uint64_t(1000), uint64_t(1) << 20}) {
      INFO(dlk_compress_algorithm_name(a) << " count " << count);
      const dlk_codec_params p = params_for(a);
      size_t host = 0, device = 0;
      REQUIRE(dlk_compress_max_message_size(&p, count, &host) == DLK_CODEC_SUCCESS);
      REQUIRE(dlk_codec_max_message_size(&p, count, &device) == DLK_STATUS_SUCCESS);
      CHECK(device == host);
    }
  dlk_codec_params p = params_for(DLK_CODEC_INT8);
  p.block_size = 24;
  size_t bytes = 0;
  CHECK(dlk_codec_max_message_size(&p, 10, &bytes) == DLK_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(std::string(dlk_last_error()),
             Catch::StartsWith("dlk_codec_max_message_size: argument 'params->block_size' is 24"));
  CHECK(dlk_codec_max_message_size(nullptr, 10, &bytes) == DLK_STATUS_INVALID_ARGUMENT);
}

TEST_CASE("dlk_codec_encode checks every argument, then refuses a backend without device codecs",
          "[core][codec]") {
  CpuContext context;
  const std::vector<float> input(100, 1.5f);
  std::vector<float> residual(100, 0.0f);
  dlk_codec_params p = params_for(DLK_CODEC_INT8);
  size_t capacity = 0, size = 0;
  REQUIRE(dlk_codec_max_message_size(&p, input.size(), &capacity) == DLK_STATUS_SUCCESS);
  std::vector<uint8_t> message(capacity, 0xA5);

  CHECK(dlk_codec_encode(context.get(), &p, input.data(), residual.data(), input.size(), message.data(), capacity,
                         &size) == DLK_STATUS_UNSUPPORTED);
  CHECK_THAT(std::string(dlk_last_error()),
             Catch::StartsWith("dlk_codec_encode: backend 'cpu' does not run the int8 codec on its device"));

  struct Bad {
    const char *argument;
    dlk_status status;
  };
  auto expect = [&](const Bad &bad, dlk_status status) {
    INFO(bad.argument);
    CHECK(status == bad.status);
    CHECK_THAT(std::string(dlk_last_error()),
               Catch::StartsWith(std::string("dlk_codec_encode: argument '") + bad.argument + "'"));
  };
  expect({"context", DLK_STATUS_INVALID_ARGUMENT},
         dlk_codec_encode(nullptr, &p, input.data(), nullptr, input.size(), message.data(), capacity, &size));
  expect({"params", DLK_STATUS_INVALID_ARGUMENT},
         dlk_codec_encode(context.get(), nullptr, input.data(), nullptr, input.size(), message.data(), capacity,
                          &size));
  expect({"capacity", DLK_STATUS_INVALID_ARGUMENT},
         dlk_codec_encode(context.get(), &p, input.data(), nullptr, input.size(), message.data(), capacity - 1,
                          &size));
  expect({"input", DLK_STATUS_INVALID_ARGUMENT},
         dlk_codec_encode(context.get(), &p, nullptr, nullptr, input.size(), message.data(), capacity, &size));
  expect({"residual", DLK_STATUS_INVALID_ARGUMENT},
         dlk_codec_encode(context.get(), &p, input.data(),
                          reinterpret_cast<float *>(reinterpret_cast<char *>(residual.data()) + 1), input.size(),
                          message.data(), capacity, &size));  // not 4-byte aligned
  expect({"message_size", DLK_STATUS_INVALID_ARGUMENT},
         dlk_codec_encode(context.get(), &p, input.data(), nullptr, input.size(), message.data(), capacity,
                          nullptr));
  p.rounding = static_cast<dlk_codec_rounding>(7);
  expect({"params->rounding", DLK_STATUS_INVALID_ARGUMENT},
         dlk_codec_encode(context.get(), &p, input.data(), nullptr, input.size(), message.data(), capacity, &size));
  for (uint8_t byte : message) CHECK(byte == 0xA5);
}

TEST_CASE("dlk_codec_decode checks the message by libdlk_compress's rules before refusing the backend",
          "[core][codec]") {
  CpuContext context;
  std::vector<float> input(33);
  for (size_t i = 0; i < input.size(); ++i) input[i] = float(i) - 16.5f;
  dlk_codec_params p = params_for(DLK_CODEC_INT4);
  p.block_size = 16;
  const std::vector<uint8_t> good = cpu_message(p, input);
  std::vector<float> output(input.size(), 7.0f);

  for (const bool add : {false, true}) {
    const char *call = add ? "dlk_codec_decode_add" : "dlk_codec_decode";
    auto decode = [&](const std::vector<uint8_t> &m, uint64_t count) {
      return add ? dlk_codec_decode_add(context.get(), m.data(), m.size(), output.data(), count)
                 : dlk_codec_decode(context.get(), m.data(), m.size(), output.data(), count);
    };
    INFO(call);
    CHECK(decode(good, input.size()) == DLK_STATUS_UNSUPPORTED);
    CHECK_THAT(std::string(dlk_last_error()), Catch::StartsWith(std::string(call) + ": backend 'cpu' does not run"));

    std::vector<uint8_t> bad = good;
    bad[8] ^= 1;  // element count, under the checksum
    CHECK(decode(bad, input.size()) == DLK_STATUS_INVALID_ARGUMENT);
    CHECK_THAT(std::string(dlk_last_error()), Catch::Equals(std::string(call) + ": corrupt message: header checksum mismatch"));

    bad = good;
    bad.back() |= 0x80;  // 33 int4 codes: the high nibble of the last byte is padding
    CHECK(decode(bad, input.size()) == DLK_STATUS_INVALID_ARGUMENT);
    CHECK_THAT(std::string(dlk_last_error()), Catch::Contains("padding bits after the last element are not zero"));

    bad = good;
    bad.pop_back();
    CHECK(decode(bad, input.size()) == DLK_STATUS_INVALID_ARGUMENT);
    CHECK_THAT(std::string(dlk_last_error()), Catch::Contains("corrupt message: header says"));

    bad = good;
    bad[4] = 2;  // a newer format version
    CHECK(decode(bad, input.size()) == DLK_STATUS_UNSUPPORTED);
    CHECK_THAT(std::string(dlk_last_error()), Catch::Contains("newer than this library's"));

    CHECK(decode(good, input.size() - 1) == DLK_STATUS_INVALID_ARGUMENT);
    CHECK_THAT(std::string(dlk_last_error()), Catch::StartsWith(std::string(call) + ": argument 'count' is 32"));
  }
  for (float v : output) CHECK(v == 7.0f);
}
