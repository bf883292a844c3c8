// The non-blocking requests of one pipelined compressed all-reduce, and what
// becomes of them when the call fails midway (a peer's corrupt message, an MPI
// error): receives are cancelled and completed, sends are freed unfinished, and
// the message buffers are given up for good, since MPI may still read a freed
// send's buffer after the call has returned.
#pragma once

#include <vector>

#include <mpi.h>

#include "comm/algorithms.hpp"

namespace dlk::comm {

struct PipelineRequests {
  std::vector<MPI_Request> receives, sends;  // MPI_REQUEST_NULL once completed
};

// Never throws. The scratch's message buffers are moved to allocations that are
// never freed (a later call starts with empty ones).
void abandon(PipelineRequests &requests, Scratch &scratch);

// Runs body(requests); on an exception, abandons them and rethrows.
template <class F>
void with_pipeline_requests(Scratch &scratch, F &&body) {
  PipelineRequests requests;
  try {
    body(requests);
  } catch (...) {
    abandon(requests, scratch);
    throw;
  }
}

}  // namespace dlk::comm
