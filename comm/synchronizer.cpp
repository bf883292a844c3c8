#include "comm/synchronizer.hpp"

#include <algorithm>
#include <string>

#include "comm/agreement.hpp"
#include "comm/error.hpp"

namespace dlk::comm {

Synchronizer::~Synchronizer() { drain(); }

void Synchronizer::drain() {
  for (Bucket &b : buckets_)
    if (b.operation) b.operation->wait();
}

uint32_t Synchronizer::add(const char *call, float *gradient, uint64_t count) {
  if (committed_) throw_invalid(call, "sync", "is committed: add every gradient before");
  if (count > 0 && !gradient) throw_invalid(call, "gradient", "must not be NULL");
  if (reinterpret_cast<uintptr_t>(gradient) % alignof(float) != 0)
    throw_invalid(call, "gradient", "must be 4-byte aligned");
  if (gradients_.size() >= UINT32_MAX) throw_invalid(call, "sync", "holds too many gradients");
  gradients_.push_back({gradient, count, 0, 0, false});
  return static_cast<uint32_t>(gradients_.size() - 1);
}

void Synchronizer::commit(const char *call) {
  if (committed_) throw_invalid(call, "sync", "is already committed");
  uint64_t elements = 0, layout_hash = 1469598103934665603ull;  // FNV-1a over the counts
  for (uint32_t i = 0; i < gradients_.size(); ++i) {
    Gradient &g = gradients_[i];
    const bool full = !buckets_.empty() && !buckets_.back().gradients.empty() &&
                      4 * (buckets_.back().fused.size() + g.count) > bucket_bytes_;
    if (buckets_.empty() || full) buckets_.emplace_back();
    Bucket &b = buckets_.back();
    g.bucket = static_cast<uint32_t>(buckets_.size() - 1);
    g.offset = b.fused.size();
    b.gradients.push_back(i);
    b.fused.resize(b.fused.size() + g.count);
    elements += g.count;
    layout_hash = (layout_hash ^ g.count) * 1099511628211ull;
  }
  for (Bucket &b : buckets_) {
    b.buffer = std::make_unique<Buffer>(make_buffer(call, comm_, b.fused.size(), config_));
    b.pending = static_cast<uint32_t>(b.gradients.size());
    b.in_place = b.gradients.size() == 1;
    if (b.in_place) std::vector<float>().swap(b.fused);
  }
  comm_.execute([&] {
    agree(comm_.mpi(), call,
          {{"gradients", static_cast<int64_t>(gradients_.size())},
           {"elements", static_cast<int64_t>(elements)},
           {"gradient sizes (hash)", static_cast<int64_t>(layout_hash)},
           {"bucket_bytes", static_cast<int64_t>(bucket_bytes_)},
           {"buckets", static_cast<int64_t>(buckets_.size())},
           {"algorithm", buckets_.empty() ? 0 : buckets_[0].buffer->config.algorithm, true}});
  });
  committed_ = true;
}

uint32_t Synchronizer::bucket_count(const char *call) const {
  check_committed(call);
  return static_cast<uint32_t>(buckets_.size());
}

void Synchronizer::ready(const char *call, uint32_t index) {
  check_gradient(call, index);
  Gradient &g = gradients_[index];
  if (g.ready)
    throw_invalid(call, "index", "is " + std::to_string(index) + ": already ready this step");
  g.ready = true;
  --buckets_[g.bucket].pending;
  launch_ready_buckets(call);
}

uint32_t Synchronizer::gradient_bucket(const char *call, uint32_t index) const {
  check_gradient(call, index);
  return gradients_[index].bucket;
}

void Synchronizer::wait_bucket(const char *call, uint32_t bucket) {
  check_bucket(call, bucket);
  // Waiting for a bucket that cannot start would never return.
  if (!buckets_[bucket].operation)
    throw_invalid(call, "bucket",
                  "is " + std::to_string(bucket) +
                      ": it has not started this step (a gradient of it or of an earlier bucket "
                      "is not ready)");
  const Outcome &outcome = buckets_[bucket].operation->wait();
  if (outcome.status != DLK_COMM_SUCCESS) throw Error(outcome.status, outcome.message);
}

void Synchronizer::launch_ready_buckets(const char *call) {
  while (next_launch_ < buckets_.size() && buckets_[next_launch_].pending == 0) {
    Bucket &b = buckets_[next_launch_++];
    b.operation = std::make_shared<Operation>();
    comm_.submit([this, &b, call] {
      dlk_comm_report report{};
      b.start = Clock::now();
      Outcome outcome = run_guarded(call, [&] {
        if (b.in_place) return allreduce(call, *b.buffer, gradients_[b.gradients[0]].data, report, false);
        for (const uint32_t i : b.gradients) {
          const Gradient &g = gradients_[i];
          std::copy(g.data, g.data + g.count, b.fused.begin() + static_cast<ptrdiff_t>(g.offset));
        }
        allreduce(call, *b.buffer, b.fused.data(), report, false);
        for (const uint32_t i : b.gradients) {
          const Gradient &g = gradients_[i];
          std::copy_n(b.fused.begin() + static_cast<ptrdiff_t>(g.offset), g.count, g.data);
        }
      });
      b.end = Clock::now();
      b.operation->finish(std::move(outcome), report);
    });
  }
}

void Synchronizer::wait(const char *call, dlk_comm_sync_report *report,
                        dlk_comm_report *bucket_reports) {
  check_committed(call);
  const Clock::time_point called = Clock::now();
  dlk_comm_sync_report total{};
  total.buckets = static_cast<uint32_t>(buckets_.size());
  Outcome first_error;
  for (size_t k = 0; k < buckets_.size(); ++k) {
    Bucket &b = buckets_[k];
    if (!b.operation) continue;
    dlk_comm_report r{};
    const Outcome &outcome = b.operation->wait(&r);
    if (outcome.status != DLK_COMM_SUCCESS && first_error.status == DLK_COMM_SUCCESS)
      first_error = outcome;
    if (bucket_reports) bucket_reports[k] = r;
    total.logical_bytes += r.logical_bytes;
    total.wire_bytes_sent += r.wire_bytes_sent;
    total.wire_bytes_received += r.wire_bytes_received;
    const double seconds = std::chrono::duration<double>(b.end - b.start).count();
    total.communication_seconds += seconds;
    if (comm_.background())
      total.overlapped_seconds += std::max(
          0.0, std::chrono::duration<double>(std::min(b.end, called) - b.start).count());
  }
  total.wait_seconds = std::chrono::duration<double>(Clock::now() - called).count();

  const uint32_t launched = next_launch_;
  uint32_t not_ready = UINT32_MAX;
  for (uint32_t i = 0; i < gradients_.size(); ++i) {
    if (!gradients_[i].ready && not_ready == UINT32_MAX) not_ready = i;
    gradients_[i].ready = false;
  }
  for (Bucket &b : buckets_) {
    b.pending = static_cast<uint32_t>(b.gradients.size());
    b.operation.reset();
  }
  next_launch_ = 0;
  if (report) *report = total;
  if (launched < buckets_.size())
    throw_invalid(call, "sync",
                  "gradient " + std::to_string(not_ready) +
                      " was never marked ready (dlk_comm_sync_ready) this step");
  if (first_error.status != DLK_COMM_SUCCESS) throw Error(first_error.status, first_error.message);
}

void Synchronizer::bucket_times(const char *call, double *starts, double *ends) const {
  check_committed(call);
  const auto seconds = [](Clock::time_point t) {
    return t == Clock::time_point{} ? 0.0 : std::chrono::duration<double>(t.time_since_epoch()).count();
  };
  for (size_t k = 0; k < buckets_.size(); ++k) {
    starts[k] = seconds(buckets_[k].start);
    ends[k] = seconds(buckets_[k].end);
  }
}

void Synchronizer::check_committed(const char *call) const {
  if (!committed_) throw_invalid(call, "sync", "is not committed (dlk_comm_sync_commit)");
}

void Synchronizer::check_gradient(const char *call, uint32_t index) const {
  check_committed(call);
  if (index >= gradients_.size())
    throw_invalid(call, "index",
                  "is " + std::to_string(index) + "; " + std::to_string(gradients_.size()) +
                      " gradients are registered");
}

void Synchronizer::check_bucket(const char *call, uint32_t bucket) const {
  check_committed(call);
  if (bucket >= buckets_.size())
    throw_invalid(call, "bucket",
                  "is " + std::to_string(bucket) + "; the synchronizer has " +
                      std::to_string(buckets_.size()) + " buckets");
}

void Synchronizer::check_between_steps(const char *call) const {
  check_committed(call);
  for (const Gradient &g : gradients_)
    if (g.ready)
      throw_invalid(call, "sync",
                    "is in the middle of a step (a gradient is ready): call dlk_comm_sync_wait first");
}

Buffer &Synchronizer::bucket_buffer(const char *call, uint32_t bucket) {
  check_between_steps(call);
  check_bucket(call, bucket);
  return *buckets_[bucket].buffer;
}

}  // namespace dlk::comm
