// libdlk_comm C++17 wrapper: header-only, over the C ABI of dlk_comm.h. Failures
// throw dlk::comm::Error carrying the status and dlk_comm_last_error()'s message.
//
//   dlk::comm::Communicator comm;                    // MPI_COMM_WORLD
//   dlk::comm::Buffer grad(comm, n, dlk::comm::config(DLK_COMM_ALGO_ONEBIT));
//   dlk_comm_report r = grad.allreduce(data);
//   dlk::comm::Request pending = grad.iallreduce(data);  ...  pending.wait();
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dlk/dlk_comm.h"

namespace dlk::comm {

class Error : public std::runtime_error {
 public:
  Error(dlk_comm_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  dlk_comm_status status() const noexcept { return status_; }

 private:
  dlk_comm_status status_;
};

inline void check(dlk_comm_status status) {
  if (status != DLK_COMM_SUCCESS) throw Error(status, dlk_comm_last_error());
}

// dlk_comm_config with the defaults filled in and `algorithm` set.
inline dlk_comm_config config(dlk_comm_algorithm algorithm = DLK_COMM_ALGO_DEFAULT) {
  dlk_comm_config c;
  check(dlk_comm_config_init(&c));
  c.algorithm = algorithm;
  return c;
}

inline dlk_comm_algorithm algorithm_from_name(const std::string &name) {
  dlk_comm_algorithm a;
  check(dlk_comm_algorithm_from_name(name.c_str(), &a));
  return a;
}

// Owns a dlk_comm; movable, not copyable.
class Communicator {
 public:
  // Over MPI_COMM_WORLD (initializing MPI when nobody has), or over `mpi_comm`.
  Communicator() { check(dlk_comm_create_world(&handle_)); }
  explicit Communicator(MPI_Comm mpi_comm) { check(dlk_comm_create(mpi_comm, &handle_)); }
  ~Communicator() { dlk_comm_destroy(handle_); }
  Communicator(Communicator &&o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  Communicator &operator=(Communicator &&o) noexcept {
    std::swap(handle_, o.handle_);
    return *this;
  }
  Communicator(const Communicator &) = delete;
  Communicator &operator=(const Communicator &) = delete;

  dlk_comm get() const { return handle_; }
  dlk_comm_properties properties() const {
    dlk_comm_properties p;
    check(dlk_comm_get_properties(handle_, &p));
    return p;
  }
  int rank() const { return properties().rank; }
  int size() const { return properties().size; }

 private:
  dlk_comm handle_ = nullptr;
};

// A pending iallreduce; wait() returns its report (the destructor waits too).
class Request {
 public:
  explicit Request(dlk_comm_request r) : handle_(r) {}
  ~Request() {
    if (handle_) dlk_comm_wait(handle_, nullptr);
  }
  Request(Request &&o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  Request &operator=(Request &&o) noexcept {
    std::swap(handle_, o.handle_);
    return *this;
  }
  Request(const Request &) = delete;
  Request &operator=(const Request &) = delete;

  bool test() const {
    int done = 0;
    check(dlk_comm_test(handle_, &done));
    return done != 0;
  }
  dlk_comm_report wait() {
    dlk_comm_report r{};
    check(dlk_comm_wait(std::exchange(handle_, nullptr), &r));
    return r;
  }

 private:
  dlk_comm_request handle_;
};

class Buffer {
 public:
  Buffer(const Communicator &comm, uint64_t count, const dlk_comm_config &c = config()) {
    check(dlk_comm_buffer_create(comm.get(), count, &c, &handle_));
  }
  ~Buffer() { dlk_comm_buffer_destroy(handle_); }
  Buffer(Buffer &&o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  Buffer &operator=(Buffer &&o) noexcept {
    std::swap(handle_, o.handle_);
    return *this;
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  dlk_comm_buffer get() const { return handle_; }
  dlk_comm_report allreduce(float *data) {
    dlk_comm_report r{};
    check(dlk_comm_allreduce(handle_, data, &r));
    return r;
  }
  Request iallreduce(float *data) {
    dlk_comm_request r = nullptr;
    check(dlk_comm_iallreduce(handle_, data, &r));
    return Request(r);
  }
  void reset_residuals() { check(dlk_comm_buffer_reset_residuals(handle_)); }
  std::vector<uint8_t> save_state() const {
    size_t bytes = 0;
    check(dlk_comm_buffer_state_size(handle_, &bytes));
    std::vector<uint8_t> state(bytes);
    check(dlk_comm_buffer_save_state(handle_, state.data(), state.size()));
    return state;
  }
  void load_state(const std::vector<uint8_t> &state) {
    check(dlk_comm_buffer_load_state(handle_, state.data(), state.size()));
  }

 private:
  dlk_comm_buffer handle_ = nullptr;
};

class Synchronizer {
 public:
  Synchronizer(const Communicator &comm, const dlk_comm_config &c = config(),
               uint64_t bucket_bytes = DLK_COMM_DEFAULT_BUCKET_BYTES) {
    check(dlk_comm_sync_create(comm.get(), &c, bucket_bytes, &handle_));
  }
  ~Synchronizer() { dlk_comm_sync_destroy(handle_); }
  Synchronizer(const Synchronizer &) = delete;
  Synchronizer &operator=(const Synchronizer &) = delete;

  uint32_t add(float *gradient, uint64_t count) {
    uint32_t index = 0;
    check(dlk_comm_sync_add(handle_, gradient, count, &index));
    return index;
  }
  void commit() { check(dlk_comm_sync_commit(handle_)); }
  uint32_t bucket_count() const {
    uint32_t n = 0;
    check(dlk_comm_sync_bucket_count(handle_, &n));
    return n;
  }
  void ready(uint32_t index) { check(dlk_comm_sync_ready(handle_, index)); }
  uint32_t gradient_bucket(uint32_t index) const {
    uint32_t bucket = 0;
    check(dlk_comm_sync_gradient_bucket(handle_, index, &bucket));
    return bucket;
  }
  void wait_bucket(uint32_t bucket) { check(dlk_comm_sync_wait_bucket(handle_, bucket)); }
  // bucket_reports: when not null, gets one report per bucket.
  dlk_comm_sync_report wait(std::vector<dlk_comm_report> *bucket_reports = nullptr) {
    dlk_comm_sync_report r{};
    if (bucket_reports) bucket_reports->assign(bucket_count(), dlk_comm_report{});
    check(dlk_comm_sync_wait(handle_, &r, bucket_reports ? bucket_reports->data() : nullptr));
    return r;
  }
  // Of the last step, seconds of std::chrono::steady_clock: {starts, ends}.
  std::pair<std::vector<double>, std::vector<double>> bucket_times() const {
    std::vector<double> starts(bucket_count()), ends(starts.size());
    check(dlk_comm_sync_bucket_times(handle_, starts.data(), ends.data()));
    return {std::move(starts), std::move(ends)};
  }
  void reset_residuals() { check(dlk_comm_sync_reset_residuals(handle_)); }
  std::vector<uint8_t> save_bucket_state(uint32_t bucket) const {
    size_t bytes = 0;
    check(dlk_comm_sync_bucket_state_size(handle_, bucket, &bytes));
    std::vector<uint8_t> state(bytes);
    check(dlk_comm_sync_save_bucket_state(handle_, bucket, state.data(), state.size()));
    return state;
  }
  void load_bucket_state(uint32_t bucket, const std::vector<uint8_t> &state) {
    check(dlk_comm_sync_load_bucket_state(handle_, bucket, state.data(), state.size()));
  }

 private:
  dlk_comm_sync handle_ = nullptr;
};

}  // namespace dlk::comm
