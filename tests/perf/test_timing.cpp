#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "perf/common/timing.hpp"

using namespace dlk::perf;

TEST_CASE("rounds continue until both minimums are met", "[perf][timing]") {
  TimingOptions o;
  o.min_samples = 5;
  o.min_seconds = 1.0;
  o.max_samples = 100;
  o.max_seconds = 10.0;
  CHECK(needs_another_round(0, 0.0, o));
  CHECK(needs_another_round(4, 2.0, o));   // too few samples
  CHECK(needs_another_round(5, 0.5, o));   // too short
  CHECK_FALSE(needs_another_round(5, 1.0, o));
  CHECK_FALSE(needs_another_round(100, 0.1, o));  // max_samples wins over min_seconds
  CHECK_FALSE(needs_another_round(2, 10.0, o));   // max_seconds wins over min_samples
}

TEST_CASE("one round always runs", "[perf][timing]") {
  TimingOptions o;
  o.max_seconds = 0.0;
  o.max_samples = 0;
  CHECK(needs_another_round(0, 100.0, o));
  CHECK_FALSE(needs_another_round(1, 100.0, o));
}

TEST_CASE("each round starts with the next candidate", "[perf][timing]") {
  CHECK(interleaved_index(0, 0, 3) == 0);
  CHECK(interleaved_index(0, 2, 3) == 2);
  CHECK(interleaved_index(1, 0, 3) == 1);
  CHECK(interleaved_index(1, 2, 3) == 0);
  CHECK(interleaved_index(5, 1, 3) == 0);
}

TEST_CASE("time_interleaved warms up, then alternates candidates", "[perf][timing]") {
  std::string calls;
  const std::vector<Candidate> candidates{{"a", [&] { calls += 'a'; }},
                                          {"b", [&] { calls += 'b'; }}};
  TimingOptions o;
  o.warmup_calls = 1;
  o.min_samples = 3;
  o.min_seconds = 0;
  o.max_samples = 3;
  const std::vector<Timing> t = time_interleaved(candidates, o);
  CHECK(calls == "ab" "ab" "ba" "ab");
  REQUIRE(t.size() == 2);
  CHECK(t[0].name == "a");
  CHECK(t[1].name == "b");
  CHECK(t[0].seconds.size() == 3);
  CHECK(t[1].seconds.size() == 3);
  CHECK(t[0].summary().count == 3);
  for (double s : t[0].seconds) CHECK(s >= 0.0);
}

TEST_CASE("a burst lasts at least the minimum, one call at least", "[perf][timing]") {
  CHECK(calls_per_burst(0.001, 0.02) == 20);
  CHECK(calls_per_burst(0.003, 0.02) == 7);
  CHECK(calls_per_burst(0.5, 0.02) == 1);
  CHECK(calls_per_burst(0.001, 0.0) == 1);
  CHECK(calls_per_burst(0.0, 0.02) == 1);
}

TEST_CASE("warm-up goes on until it took a burst's time", "[perf][timing]") {
  // Each call sleeps at least 2 ms, so a 5 ms warm-up takes 2 (the minimum) or 3 calls,
  // and a burst of at least 5 ms takes at most 3 calls, however slow the machine.
  int calls = 0;
  const Candidate sleeper{"sleeper", [&] {
                            ++calls;
                            std::this_thread::sleep_for(std::chrono::milliseconds(2));
                          }};
  TimingOptions o;
  o.warmup_calls = 2;
  o.min_burst_seconds = 0.005;
  o.min_samples = 1;
  o.max_samples = 1;
  const std::vector<Timing> t = time_interleaved({sleeper}, o);
  REQUIRE(t.size() == 1);
  CHECK(t[0].calls_per_burst >= 1);
  CHECK(t[0].calls_per_burst <= 3);
  const int warmup = calls - t[0].calls_per_burst;
  CHECK(warmup >= 2);
  CHECK(warmup <= 3);
}

TEST_CASE("no candidates give no timings", "[perf][timing]") {
  CHECK(time_interleaved({}, TimingOptions{}).empty());
}
