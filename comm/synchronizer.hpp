// The gradient synchronizer: registered gradients fused into buckets (in
// registration order, up to a byte cap, as PyTorch DDP does); a bucket's
// all-reduce is submitted to the communicator's collective thread as soon as it
// and every bucket before it are ready, so it runs while the caller's backward
// pass goes on, and every rank submits buckets in the same order.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "comm/buffer.hpp"
#include "comm/operation.hpp"

namespace dlk::comm {

class Synchronizer {
 public:
  Synchronizer(Communicator &comm, const dlk_comm_config &config, uint64_t bucket_bytes)
      : comm_(comm), config_(config), bucket_bytes_(bucket_bytes) {}
  ~Synchronizer();  // waits for buckets in flight

  uint32_t add(const char *call, float *gradient, uint64_t count);
  void commit(const char *call);  // collective
  uint32_t bucket_count(const char *call) const;
  void ready(const char *call, uint32_t index);
  uint32_t gradient_bucket(const char *call, uint32_t index) const;
  // Local: until bucket `bucket` of this step has ended (its error, if any).
  void wait_bucket(const char *call, uint32_t bucket);
  // Collective: the first error of a bucket, if any, is rethrown after all finish.
  void wait(const char *call, dlk_comm_sync_report *report, dlk_comm_report *bucket_reports);
  // Of the last step, on the steady clock; 0 for a bucket that has not run.
  void bucket_times(const char *call, double *starts, double *ends) const;
  // Between steps only: the buckets' buffers (residuals, checkpoints).
  Buffer &bucket_buffer(const char *call, uint32_t bucket);

 private:
  using Clock = std::chrono::steady_clock;
  struct Gradient {
    float *data;
    uint64_t count;
    uint32_t bucket;
    uint64_t offset;  // in the bucket
    bool ready;
  };
  struct Bucket {
    std::vector<uint32_t> gradients;
    std::vector<float> fused;  // empty when in_place
    // A bucket of one gradient is all-reduced where the gradient lies: the copies
    // in and out of the fused buffer (67 MB each way for the wide model's fc2
    // weight, on the collective thread before the first chunk goes out and after
    // the last) would add nothing.
    bool in_place = false;
    std::unique_ptr<Buffer> buffer;
    uint32_t pending = 0;  // gradients not yet ready this step
    std::shared_ptr<Operation> operation;
    Clock::time_point start, end;  // of its all-reduce, written by the thread that runs it
  };

  void launch_ready_buckets(const char *call);
  // Each throws DLK_COMM_INVALID_ARGUMENT naming the argument: the synchronizer
  // is not committed, or the gradient index or bucket is out of range.
  void check_committed(const char *call) const;
  void check_gradient(const char *call, uint32_t index) const;
  void check_bucket(const char *call, uint32_t bucket) const;
  void check_between_steps(const char *call) const;
  void drain();

  Communicator &comm_;
  dlk_comm_config config_;
  uint64_t bucket_bytes_;
  std::vector<Gradient> gradients_;
  std::vector<Bucket> buckets_;
  bool committed_ = false;
  uint32_t next_launch_ = 0;
};

}  // namespace dlk::comm
