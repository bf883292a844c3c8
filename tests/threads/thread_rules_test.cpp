#include <dirent.h>
#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <thread>
#include <vector>

#include "dlk/dlk.h"
#include "tests/threads/threads_created.hpp"

namespace {

// Threads of this process now (the entries of /proc/self/task).
int live_threads() {
  DIR *dir = opendir("/proc/self/task");
  if (!dir) return -1;
  int n = 0;
  while (const dirent *e = readdir(dir))
    if (e->d_name[0] != '.') ++n;
  closedir(dir);
  return n;
}

dlk_context_t make_context(int threads) {
  dlk_context_options o;
  dlk_context_options_init(&o);
  o.backend = "cpu";
  o.num_threads = threads;
  dlk_context_t ctx = nullptr;
  REQUIRE(dlk_context_create(&ctx, &o) == DLK_STATUS_SUCCESS);
  return ctx;
}

// batch products C_i = A_i * B_i of n x n row-major matrices: many independent
// tiles, so that a multi-threaded call has work for every thread it may start.
struct Problem {
  int64_t n, batch;
  std::vector<float> a, b;
  Problem(int64_t size, int64_t count, uint32_t seed)
      : n(size), batch(count), a(size * size * count), b(size * size * count) {
    for (auto *v : {&a, &b})
      for (float &x : *v) {
        seed = seed * 1664525u + 1013904223u;
        x = static_cast<float>((seed >> 8) % 2001) / 1000.0f - 1.0f;
      }
  }
  // The products on ctx; false when the call fails.
  bool run(dlk_context_t ctx, std::vector<float> &c) const {
    c.assign(a.size(), 0.0f);
    dlk_gemm_desc g;
    dlk_gemm_desc_init(&g, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, n, n, n);
    g.batch_count = batch;
    g.stride_a = g.stride_b = g.stride_c = n * n;
    return dlk_gemm(ctx, &g, a.data(), b.data(), c.data()) == DLK_STATUS_SUCCESS;
  }
  // Whether c is within the f32 bound (n + 2) * eps * sum |a b| of the double product.
  bool matches(const std::vector<float> &c) const {
    for (int64_t p = 0; p < batch; ++p) {
      const float *pa = a.data() + p * n * n, *pb = b.data() + p * n * n;
      const float *pc = c.data() + p * n * n;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double sum = 0, magnitude = 0;
          for (int64_t l = 0; l < n; ++l) {
            const double x = static_cast<double>(pa[i * n + l]) * pb[l * n + j];
            sum += x, magnitude += std::fabs(x);
          }
          if (!(std::fabs(pc[i * n + j] - sum) <= (n + 2) * 0x1p-24 * magnitude + 1e-30))
            return false;
        }
    }
    return true;
  }
};

}  // namespace

TEST_CASE("contexts on several threads run at once, each as if alone", "[threads]") {
  constexpr int kThreads = 4, kCalls = 6;
  std::vector<Problem> problems;
  for (int t = 0; t < kThreads; ++t) problems.emplace_back(64, 4, 17u + t);

  // The same calls one after another on one context: what each thread must get.
  std::vector<std::vector<std::vector<float>>> alone(kThreads, std::vector<std::vector<float>>(kCalls));
  dlk_context_t serial = make_context(2);
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kCalls; ++i) REQUIRE(problems[t].run(serial, alone[t][i]));
  REQUIRE(dlk_context_destroy(serial) == DLK_STATUS_SUCCESS);

  std::vector<std::vector<std::vector<float>>> together(kThreads, std::vector<std::vector<float>>(kCalls));
  std::vector<int> failed(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      dlk_context_options o;
      dlk_context_options_init(&o);
      o.backend = "cpu";
      o.num_threads = 2;
      dlk_context_t ctx = nullptr;
      if (dlk_context_create(&ctx, &o) != DLK_STATUS_SUCCESS) {
        failed[t] = 1;
        return;
      }
      for (int i = 0; i < kCalls; ++i)
        if (!problems[t].run(ctx, together[t][i])) failed[t] = 1;
      dlk_context_destroy(ctx);
    });
  for (auto &th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    INFO("thread " << t);
    CHECK(failed[t] == 0);
    for (int i = 0; i < kCalls; ++i) CHECK(together[t][i] == alone[t][i]);
  }
}

TEST_CASE("inside the caller's OpenMP parallel region, a call runs on the calling thread",
          "[threads][openmp]") {
  // Even with nested parallelism allowed, dlk starts no team of its own there: the
  // caller's threads already occupy the cores.
  omp_set_max_active_levels(2);
  const Problem problem(48, 16, 5);
  std::vector<std::vector<float>> results(2);
  int failures = 0;
  const long before = dlk_test::threads_created();
#pragma omp parallel num_threads(2) reduction(+ : failures)
  {
    dlk_context_options o;
    dlk_context_options_init(&o);
    o.backend = "cpu";
    o.num_threads = 4;
    dlk_context_t ctx = nullptr;
    if (dlk_context_create(&ctx, &o) != DLK_STATUS_SUCCESS ||
        !problem.run(ctx, results[omp_get_thread_num()]))
      ++failures;
    dlk_context_destroy(ctx);
  }
  CHECK(failures == 0);
  // The region's second thread at most; nested teams of four would have started
  // three threads each.
  CHECK(dlk_test::threads_created() - before <= 1);
  CHECK(problem.matches(results[0]));
  CHECK(problem.matches(results[1]));
}

TEST_CASE("a call uses at most the context's thread count", "[threads]") {
  const Problem problem(48, 16, 9);
  std::vector<float> c;
  REQUIRE(live_threads() == 1);
  dlk_context_t one = make_context(1);
  REQUIRE(problem.run(one, c));
  CHECK(problem.matches(c));
  CHECK(live_threads() == 1);
  dlk_context_t three = make_context(3);
  REQUIRE(problem.run(three, c));
  CHECK(problem.matches(c));
  CHECK(live_threads() <= 3);
  dlk_context_destroy(one);
  dlk_context_destroy(three);
}

TEST_CASE("after fork(), the child computes on its one thread", "[threads][fork]") {
  // The parent's OpenMP team exists when it forks; the child has none of its
  // threads, and OpenMP would wait for them forever.
  const Problem problem(48, 16, 3);
  std::vector<float> c;
  dlk_context_t parent_context = make_context(2);
  REQUIRE(problem.run(parent_context, c));
  REQUIRE(problem.matches(c));

  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // A hang is the failure to catch: SIGALRM ends the child long after any
    // plausible run time (this is no timing of the computation).
    alarm(120);
    std::vector<float> child_c;
    dlk_context_t child_context = make_context(2);
    const bool ok = problem.run(child_context, child_c) && problem.matches(child_c) &&
                    problem.run(parent_context, child_c) && problem.matches(child_c) &&
                    live_threads() == 1;
    dlk_context_destroy(child_context);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  INFO("child status " << status << (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM
                                          ? " (it hung: killed by its alarm)"
                                          : ""));
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  dlk_context_destroy(parent_context);
}
