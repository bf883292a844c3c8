// Waiting for MPI requests without holding a core. Open MPI busy-polls inside
// MPI_Wait, so a background all-reduce that waits on a slow link would take a
// core from the compute threads for as long as the bytes travel (on 2 cores a
// 2-thread GEMM ran at a third to a half of its rate beside a busy-polling
// 1 Gbit/s int8 all-reduce loop: docs/comm.md, "A GEMM beside ..."). These
// test, spin for kSpin, then sleep between tests (backing off from kMinSleep to
// kMaxSleep): a TCP socket keeps sending from its buffer while the thread
// sleeps, and a request that completes within the spin costs no sleep at all.
// For the compressed algorithms, whose chunks take far longer on a network
// link than a sleep.
#pragma once

#include <vector>

#include <mpi.h>

namespace dlk::comm {

// As MPI_Wait; throws DLK_COMM_MPI_ERROR naming `call`.
void polite_wait(const char *call, MPI_Request &request, MPI_Status *status);
// As MPI_Waitall (MPI_STATUSES_IGNORE).
void polite_wait_all(const char *call, std::vector<MPI_Request> &requests);

}  // namespace dlk::comm
