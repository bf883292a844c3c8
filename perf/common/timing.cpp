#include "perf/common/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace dlk::perf {

Summary Timing::summary() const { return summarize(seconds); }

double now_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

TimingOptions peer_interleaved_timing(double min_seconds, double max_seconds) {
  TimingOptions t;
  t.warmup_calls = 1;
  t.min_burst_seconds = 0.02;
  t.pause_seconds = 0.02;
  t.min_samples = 5;
  t.min_seconds = min_seconds;
  t.max_samples = 1000;
  t.max_seconds = max_seconds;
  return t;
}

bool needs_another_round(int rounds, double elapsed, const TimingOptions &options) {
  if (rounds < 1) return true;
  if (rounds >= options.max_samples || elapsed >= options.max_seconds) return false;
  return rounds < options.min_samples || elapsed < options.min_seconds;
}

size_t interleaved_index(int round, size_t position, size_t count) {
  return (static_cast<size_t>(round) + position) % count;
}

int calls_per_burst(double call_seconds, double min_burst_seconds) {
  if (call_seconds <= 0) return 1;
  const double calls = std::ceil(min_burst_seconds / call_seconds);
  return static_cast<int>(std::clamp(calls, 1.0, 1e6));
}

std::vector<Timing> time_interleaved(const std::vector<Candidate> &candidates,
                                     const TimingOptions &options) {
  std::vector<Timing> timings;
  for (const Candidate &c : candidates) {
    // The fastest warm-up call sets the burst: one slow call (a page fault, a
    // preempted thread) would otherwise make every burst too short.
    double fastest = 0, spent = 0;
    for (int w = 0; w < 1000 && (w < options.warmup_calls || spent < options.min_burst_seconds);
         ++w) {
      const double t0 = now_seconds();
      c.run();
      const double call = now_seconds() - t0;
      fastest = w == 0 ? call : std::min(fastest, call);
      spent += call;
    }
    timings.push_back(Timing{c.name, calls_per_burst(fastest, options.min_burst_seconds), {}});
  }
  if (candidates.empty()) return timings;

  const double start = now_seconds();
  for (int round = 0; needs_another_round(round, now_seconds() - start, options); ++round) {
    for (size_t pos = 0; pos < candidates.size(); ++pos) {
      const size_t i = interleaved_index(round, pos, candidates.size());
      if (options.pause_seconds > 0)
        std::this_thread::sleep_for(std::chrono::duration<double>(options.pause_seconds));
      const int calls = timings[i].calls_per_burst;
      const double t0 = now_seconds();
      for (int call = 0; call < calls; ++call) candidates[i].run();
      timings[i].seconds.push_back((now_seconds() - t0) / calls);
    }
  }
  return timings;
}

}  // namespace dlk::perf
