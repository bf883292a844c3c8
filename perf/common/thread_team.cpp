#include "perf/common/thread_team.hpp"

#include <atomic>
#include <thread>
#include <vector>

#include "perf/common/timing.hpp"

namespace dlk::perf {

double run_on_threads(int threads, const std::function<void(int)> &body) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> team;
  team.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    team.emplace_back([&, t] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      body(t);
    });
  }
  while (ready.load() < threads) std::this_thread::yield();
  const double start = now_seconds();
  go.store(true, std::memory_order_release);
  for (auto &thread : team) thread.join();
  return now_seconds() - start;
}

}  // namespace dlk::perf
