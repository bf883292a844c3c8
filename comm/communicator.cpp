#include "comm/communicator.hpp"

#include <condition_variable>
#include <mutex>
#include <utility>

#include "comm/env_config.hpp"
#include "comm/error.hpp"

namespace dlk::comm {

Communicator::Communicator(MPI_Comm parent, bool initialized_mpi, const char *call)
    : initialized_mpi_(initialized_mpi),
      default_algorithm_(comm::default_algorithm(call)),
      verbose_(comm::verbose_level(call)),
      chunk_bytes_(comm::chunk_bytes(call)) {
  check_mpi(call, "MPI_Query_thread", MPI_Query_thread(&thread_level_));
  check_mpi(call, "MPI_Comm_dup", MPI_Comm_dup(parent, &comm_));
  const int rc = MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  if (rc != MPI_SUCCESS) {
    MPI_Comm_free(&comm_);
    check_mpi(call, "MPI_Comm_set_errhandler", rc);
  }
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  if (thread_level_ == MPI_THREAD_MULTIPLE) worker_ = std::make_unique<Worker>();
}

Communicator::~Communicator() {
  worker_.reset();
  MPI_Comm_free(&comm_);
}

void Communicator::execute(const std::function<void()> &job) {
  if (!worker_) {
    job();
    return;
  }
  if (worker_->run_here_if_idle(job)) return;
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::exception_ptr error;
  worker_->submit([&] {
    try {
      job();
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
    finished.notify_one();
  });
  std::unique_lock<std::mutex> lock(mutex);
  finished.wait(lock, [&] { return done; });
  if (error) std::rethrow_exception(error);
}

void Communicator::submit(std::function<void()> job) {
  if (worker_)
    worker_->submit(std::move(job));
  else
    job();
}

}  // namespace dlk::comm
