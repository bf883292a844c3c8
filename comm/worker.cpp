#include "comm/worker.hpp"

#include <utility>

namespace dlk::comm {

Worker::Worker() : thread_([this] { loop(); }) {}

Worker::~Worker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void Worker::submit(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
}

bool Worker::run_here_if_idle(const std::function<void()> &job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (running_ || !jobs_.empty()) return false;
    running_ = true;
  }
  struct Done {
    Worker &w;
    ~Done() {
      {
        std::lock_guard<std::mutex> lock(w.mutex_);
        w.running_ = false;
      }
      w.wake_.notify_one();
    }
  } done{*this};
  job();
  return true;
}

void Worker::loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return (stopping_ && !running_) || (!jobs_.empty() && !running_); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      running_ = true;
    }
    job();
    std::lock_guard<std::mutex> lock(mutex_);
    running_ = false;
  }
}

}  // namespace dlk::comm
