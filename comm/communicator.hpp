// A dlk communicator: dlk's own duplicate of the caller's MPI communicator (set to
// MPI_ERRORS_RETURN), and the one place its collectives run: on a background
// thread when MPI gives MPI_THREAD_MULTIPLE, else in the calling thread.
#pragma once

#include <exception>
#include <cstdint>
#include <functional>
#include <memory>

#include <mpi.h>

#include "comm/link_model.hpp"
#include "comm/worker.hpp"
#include "dlk/dlk_comm.h"

namespace dlk::comm {

class Communicator {
 public:
  Communicator(MPI_Comm parent, bool initialized_mpi, const char *call);
  ~Communicator();  // drains the background thread, frees the duplicate
  Communicator(const Communicator &) = delete;
  Communicator &operator=(const Communicator &) = delete;

  MPI_Comm mpi() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int thread_level() const { return thread_level_; }
  bool background() const { return worker_ != nullptr; }
  bool initialized_mpi() const { return initialized_mpi_; }
  dlk_comm_algorithm default_algorithm() const { return default_algorithm_; }
  int verbose() const { return verbose_; }
  uint64_t chunk_bytes() const { return chunk_bytes_; }

  // Runs job after every collective submitted before it, and returns when it is
  // done; an exception thrown by job is rethrown here.
  void execute(const std::function<void()> &job);
  // Runs job after every collective submitted before it: in the background, or
  // here and now. job must not throw.
  void submit(std::function<void()> job);

  // Measured once, by the first collective that needs it (auto).
  LinkModel &link_model() { return link_model_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, thread_level_ = MPI_THREAD_SINGLE;
  bool initialized_mpi_;
  dlk_comm_algorithm default_algorithm_;
  int verbose_;
  uint64_t chunk_bytes_;
  LinkModel link_model_;
  std::unique_ptr<Worker> worker_;  // last: joined first on destruction
};

}  // namespace dlk::comm
