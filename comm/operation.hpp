// The state of one collective started by dlk_comm_iallreduce (or a synchronizer
// bucket): filled in by whichever thread runs it, waited on by the caller.
#pragma once

#include <condition_variable>
#include <mutex>
#include <utility>

#include "comm/api_guard.hpp"

namespace dlk::comm {

class Operation {
 public:
  // Notifies under the lock: a waiter may destroy this object as soon as wait()
  // returns (a synchronizer bucket resets its operation), which it cannot do
  // before the lock is released; notifying after it raced with the destructor
  // (ThreadSanitizer, tests/comm [sync]).
  void finish(Outcome outcome, const dlk_comm_report &report) {
    std::lock_guard<std::mutex> lock(mutex_);
    outcome_ = std::move(outcome);
    report_ = report;
    done_ = true;
    finished_.notify_all();
  }

  bool done() {
    std::lock_guard<std::mutex> lock(mutex_);
    return done_;
  }

  // Blocks until finished.
  const Outcome &wait(dlk_comm_report *report = nullptr) {
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [this] { return done_; });
    if (report) *report = report_;
    return outcome_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;
  Outcome outcome_;
  dlk_comm_report report_{};
};

}  // namespace dlk::comm
