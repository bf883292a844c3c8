// libdlk from several threads (run under ThreadSanitizer by scripts/run.sh):
// separate contexts run concurrently and give the single-threaded results; one
// context shared by threads never races: a call that finds another thread's op
// running on it is refused, naming 'context', and every call that ran is right.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "dlk/dlk.h"

namespace {

constexpr int kThreads = 4;

// Null when creation fails: worker threads must not assert (Catch2 is not
// thread-safe), so each caller checks in its own way.
dlk_context_t make_context() {
  dlk_context_options options;
  dlk_context_options_init(&options);
  options.backend = "cpu";
  options.num_threads = 1;  // OpenMP stays out of the picture (see docs/testing.md, "Reliability")
  dlk_context_t context = nullptr;
  return dlk_context_create(&context, &options) == DLK_STATUS_SUCCESS ? context : nullptr;
}

std::vector<float> ramp(size_t n, int salt) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(int((i * 7 + salt) % 11) - 5);
  return v;
}

// One round of every op family on `context`; the outputs, concatenated, or an
// empty vector with `refused` set when a call was refused for a busy context.
struct Round {
  std::vector<float> outputs;
  int refused = 0;
  std::string unexpected;  // a failure other than a busy context
};

void note(Round &r, dlk_status status, const char *call) {
  if (status == DLK_STATUS_SUCCESS) return;
  const std::string error = dlk_last_error();
  if (status == DLK_STATUS_INVALID_ARGUMENT &&
      error.find("argument 'context' is running another thread's call") != std::string::npos)
    ++r.refused;
  else
    r.unexpected = std::string(call) + ": " + error;
}

Round run_round(dlk_context_t context) {
  Round r;
  const int64_t m = 24, n = 20, k = 16;
  dlk_gemm_desc gemm;
  dlk_gemm_desc_init(&gemm, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, m, n, k);
  const auto a = ramp(m * k, 1), b = ramp(k * n, 2);
  std::vector<float> c(m * n, 0.0f);
  note(r, dlk_gemm(context, &gemm, a.data(), b.data(), c.data()), "dlk_gemm");

  dlk_conv2d_desc conv;
  dlk_conv2d_desc_init(&conv, DLK_DTYPE_F32, 2, 3, 9, 9, 4, 3, 3);
  conv.pad_h = conv.pad_w = 1;
  const auto src = ramp(2 * 3 * 9 * 9, 3), wei = ramp(4 * 3 * 3 * 3, 4);
  std::vector<float> dst(2 * 4 * 9 * 9, 0.0f);
  note(r, dlk_conv2d_forward(context, &conv, src.data(), wei.data(), nullptr, dst.data()),
       "dlk_conv2d_forward");

  dlk_pool2d_desc pool;
  dlk_pool2d_desc_init(&pool, DLK_POOL_MAX, DLK_DTYPE_F32, 2, 4, 9, 9, 3, 3);
  std::vector<float> pooled(2 * 4 * 3 * 3, 0.0f);
  std::vector<int32_t> argmax(pooled.size(), 0);
  note(r, dlk_pool2d_forward(context, &pool, dst.data(), pooled.data(), argmax.data()),
       "dlk_pool2d_forward");

  for (const auto *v : {&c, &dst, &pooled}) r.outputs.insert(r.outputs.end(), v->begin(), v->end());
  return r;
}

}  // namespace

TEST_CASE("threads: separate contexts run concurrently and agree with one thread", "[threads]") {
  dlk_context_t solo = make_context();
  REQUIRE(solo);
  const Round expected = run_round(solo);
  dlk_context_destroy(solo);
  REQUIRE(expected.unexpected.empty());

  std::vector<int> wrong(kThreads, 0);
  std::vector<std::string> unexpected(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      dlk_context_t context = make_context();
      if (!context) {
        unexpected[t] = std::string("dlk_context_create: ") + dlk_last_error();
        return;
      }
      for (int round = 0; round < 20; ++round) {
        const Round r = run_round(context);
        if (!r.unexpected.empty()) unexpected[t] = r.unexpected;
        if (r.refused || r.outputs != expected.outputs) ++wrong[t];
      }
      dlk_context_destroy(context);
    });
  for (auto &t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    INFO("thread " << t << ": " << unexpected[t]);
    CHECK(unexpected[t].empty());
    CHECK(wrong[t] == 0);
  }
}

TEST_CASE("threads: one context shared by threads refuses overlapping calls, never races",
          "[threads]") {
  dlk_context_t context = make_context();
  REQUIRE(context);
  const Round expected = run_round(context);
  REQUIRE(expected.unexpected.empty());

  std::atomic<int> refused{0}, wrong{0};
  std::vector<std::string> unexpected(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round) {
        const Round r = run_round(context);
        refused += r.refused;
        if (!r.unexpected.empty()) unexpected[t] = r.unexpected;
        // A refused call leaves its output as it was (zeros): only whole rounds compare.
        if (r.refused == 0 && r.unexpected.empty() && r.outputs != expected.outputs) ++wrong;
      }
    });
  for (auto &t : threads) t.join();
  dlk_context_destroy(context);
  for (const auto &u : unexpected) CHECK(u.empty());
  CHECK(wrong == 0);
  // Whether calls overlapped is up to the scheduler; what matters is that none raced.
  WARN(refused.load() << " calls refused for a busy context");
}

TEST_CASE("threads: a call on a context another thread's op is running on is refused", "[threads]") {
  dlk_context_t context = make_context();
  REQUIRE(context);
  const int64_t size = 800;  // long enough for the other thread to try many times
  const auto a = ramp(size * size, 1), b = ramp(size * size, 2);
  std::vector<float> c(size * size);
  dlk_gemm_desc big;
  dlk_gemm_desc_init(&big, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, size, size, size);
  std::atomic<bool> started{false}, finished{false};
  std::atomic<int> refused{0};
  dlk_status big_status = DLK_STATUS_INTERNAL_ERROR;
  // The big call runs again while it was itself refused (a small call held the
  // context) or no small call has yet met it running (a loaded machine may not
  // schedule this thread during one call), for at most 60 s.
  std::thread runner([&] {
    started = true;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    do big_status = dlk_gemm(context, &big, a.data(), b.data(), c.data());
    while ((big_status == DLK_STATUS_INVALID_ARGUMENT || refused == 0) &&
           std::chrono::steady_clock::now() < deadline);
    finished = true;
  });
  while (!started) std::this_thread::yield();
  int other = 0;
  std::string message;
  while (!finished) {
    dlk_gemm_desc small;
    dlk_gemm_desc_init(&small, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 2, 2, 2);
    const float x[4] = {1, 2, 3, 4};
    float y[4] = {};
    const dlk_status status = dlk_gemm(context, &small, x, x, y);
    if (status == DLK_STATUS_INVALID_ARGUMENT) ++refused, message = dlk_last_error();
    else if (status != DLK_STATUS_SUCCESS) ++other;
  }
  runner.join();
  dlk_context_destroy(context);
  CHECK(big_status == DLK_STATUS_SUCCESS);
  CHECK(other == 0);
  CHECK(refused > 0);
  INFO(message);
  CHECK(message.rfind("dlk_gemm: argument 'context' is running another thread's call", 0) == 0);
}
