// A small deterministic random generator for the conformance suite. The
// standard distributions are implementation-defined, so the suite draws from
// splitmix64 and maps to ranges itself: a seed gives the same cases and data on
// every standard library.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

namespace dlk::conformance {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  // A generator for one named stream of a seed (a suite's case list, one
  // case's data), independent of how many numbers other streams drew.
  Rng(uint64_t seed, const std::string &stream, uint64_t index = 0) : state_(seed) {
    for (char ch : stream) state_ = mix(state_ ^ static_cast<unsigned char>(ch));
    state_ = mix(state_ ^ index);
  }

  uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ull;
    return mix(state_);
  }

  // Uniform integer in [lo, hi].
  int64_t uniform(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>(span == 0 ? next() : next() % span);
  }

  // Uniform double in [0, 1), 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  bool chance(double probability) { return unit() < probability; }

  template <class T>
  T pick(std::initializer_list<T> values) {
    return values.begin()[uniform(0, static_cast<int64_t>(values.size()) - 1)];
  }

 private:
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  uint64_t state_;
};

}  // namespace dlk::conformance
