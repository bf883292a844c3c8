// A buffer all-reduced the same way every call, and what persists between its
// calls: the worker- and server-side residuals of the compressed algorithms, the
// call counter (warm-up, stochastic rounding), and auto's choice.
#pragma once

#include <cstdint>
#include <vector>

#include "comm/algorithms.hpp"
#include "comm/communicator.hpp"
#include "dlk/dlk_comm.h"

namespace dlk::comm {

struct Buffer {
  Communicator *comm;
  uint64_t count;
  dlk_comm_config config;           // algorithm: never DEFAULT (resolved at creation)
  dlk_comm_algorithm chosen;        // auto's choice once made, else config.algorithm
  std::vector<float> worker_residual;  // count floats, for algorithms that have residuals
  std::vector<float> server_residual;  // this rank's segment, two-phase algorithms
  uint64_t calls = 0;
  Scratch scratch;
};

// Checks the configuration (naming the field) and sizes the residuals.
Buffer make_buffer(const char *call, Communicator &comm, uint64_t count,
                   const dlk_comm_config &config);

// The collective all-reduce of data[0, buffer.count): the argument check, auto's
// choice, warm-up and threshold, then the algorithm. Runs on the communicator's
// collective thread. caller_waits: the caller blocks until it ends
// (dlk_comm_allreduce), so nothing of the caller's runs beside it; false for
// iallreduce and the synchronizer's buckets (algorithms.hpp, Collective).
void allreduce(const char *call, Buffer &buffer, float *data, dlk_comm_report &report,
               bool caller_waits);

}  // namespace dlk::comm
