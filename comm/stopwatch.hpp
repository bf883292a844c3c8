// Adds the time a piece of an all-reduce takes to one field of its report.
#pragma once

#include <chrono>

namespace dlk::comm {

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Runs f and adds its duration to `into`.
template <class F>
void timed(double &into, F &&f) {
  const Stopwatch watch;
  f();
  into += watch.seconds();
}

}  // namespace dlk::comm
