// libdlk_compress from several threads (run under ThreadSanitizer by
// scripts/run.sh): encode and decode with each thread's own buffers give the
// single-threaded bytes, the last error is each thread's own, and switching the
// process-wide ISA tier while other threads encode changes no result (every tier
// is bit-identical).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "dlk/dlk_compress.h"

namespace {

constexpr int kThreads = 4;
constexpr uint64_t kCount = 5000;

struct Coded {
  std::vector<uint8_t> message;
  std::vector<float> decoded;
  std::vector<float> residual;
  std::string error;
};

Coded code(dlk_codec_algorithm algorithm) {
  Coded out;
  dlk_codec_params params;
  dlk_compress_params_init(&params, algorithm);
  std::vector<float> input(kCount);
  for (uint64_t i = 0; i < kCount; ++i) input[i] = float(int((i * 37) % 101) - 50) / 7.0f;
  out.residual.assign(kCount, 0.25f);
  size_t capacity = 0, size = 0;
  if (dlk_compress_max_message_size(&params, kCount, &capacity) != DLK_CODEC_SUCCESS ||
      (out.message.resize(capacity),
       dlk_compress_encode(&params, input.data(), out.residual.data(), kCount, out.message.data(),
                           capacity, &size)) != DLK_CODEC_SUCCESS) {
    out.error = dlk_compress_last_error();
    return out;
  }
  out.message.resize(size);
  out.decoded.assign(kCount, 0.0f);
  if (dlk_compress_decode(out.message.data(), size, out.decoded.data(), kCount) != DLK_CODEC_SUCCESS)
    out.error = dlk_compress_last_error();
  return out;
}

const dlk_codec_algorithm kAlgorithms[] = {DLK_CODEC_ONEBIT, DLK_CODEC_TOPK, DLK_CODEC_INT8,
                                           DLK_CODEC_INT4,   DLK_CODEC_FP16, DLK_CODEC_BF16};

bool same(const Coded &x, const Coded &y) {
  return x.error == y.error && x.message == y.message &&
         std::memcmp(x.decoded.data(), y.decoded.data(), 4 * x.decoded.size()) == 0 &&
         std::memcmp(x.residual.data(), y.residual.data(), 4 * x.residual.size()) == 0;
}

}  // namespace

TEST_CASE("threads: every codec from several threads gives the one-thread bytes", "[threads]") {
  std::vector<Coded> expected;
  for (const auto algorithm : kAlgorithms) {
    expected.push_back(code(algorithm));
    REQUIRE(expected.back().error.empty());
  }
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 10; ++round)
        for (size_t i = 0; i < expected.size(); ++i)
          if (!same(code(kAlgorithms[i]), expected[i])) ++mismatches[t];
    });
  // Meanwhile, the process-wide tier changes under them.
  const char *tiers[] = {"scalar", "avx2", "avx512"};
  for (int round = 0; round < 30; ++round) dlk_compress_set_isa(tiers[round % 3]);
  for (auto &t : threads) t.join();
  CHECK(dlk_compress_set_isa(nullptr) == DLK_CODEC_SUCCESS);
  for (int t = 0; t < kThreads; ++t) CHECK(mismatches[t] == 0);
}

TEST_CASE("threads: each thread keeps its own last error", "[threads]") {
  std::vector<std::string> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      dlk_codec_params params;
      for (int round = 0; round < 200; ++round) {
        // Even threads fail (naming the algorithm they passed), odd ones succeed.
        const auto algorithm = static_cast<dlk_codec_algorithm>(t % 2 ? DLK_CODEC_INT8 : 100 + t);
        dlk_compress_params_init(&params, algorithm);
        const std::string error = dlk_compress_last_error();
        const bool right = t % 2 ? error.empty() : error.find(std::to_string(100 + t)) != std::string::npos;
        if (!right) seen[t] = error.empty() ? "(empty)" : error;
      }
    });
  for (auto &t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    INFO("thread " << t);
    CHECK(seen[t].empty());
  }
}
