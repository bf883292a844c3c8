// One background thread that runs a communicator's collectives in the order they
// were submitted: every rank submits the same collectives in the same order, so
// they match on the wire, and the caller's thread is free meanwhile.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace dlk::comm {

class Worker {
 public:
  Worker();
  ~Worker();  // runs what is queued, then joins
  Worker(const Worker &) = delete;
  Worker &operator=(const Worker &) = delete;

  // job must not throw.
  void submit(std::function<void()> job);

  // Runs job in the calling thread when nothing is queued or running (saving the
  // two thread hand-offs, which cost more than a small all-reduce), and returns
  // true; else returns false without running it. Queued jobs wait meanwhile.
  bool run_here_if_idle(const std::function<void()> &job);

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  bool running_ = false;  // a job runs, here or in the caller's thread
  std::thread thread_;
};

}  // namespace dlk::comm
