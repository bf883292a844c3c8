// The all-reduce algorithms. Each runs on a communicator's MPI duplicate, in
// place on data[0, count), and adds what it did to the report (bytes, times).
// Each leaves bitwise-identical results on every rank: every element's final
// value is computed once, by one rank (or by all from the same messages in the
// same order), and copied.
#pragma once

#include <cstdint>
#include <vector>

#include <mpi.h>

#include "dlk/dlk_comm.h"
#include "dlk/dlk_compress.h"

namespace dlk::comm {

// Work buffers that persist in a Buffer between calls: a large gradient's
// messages would otherwise be allocated, zeroed and page-faulted every call.
struct Scratch {
  std::vector<uint8_t> outgoing, incoming, gathered;
  std::vector<float> sum;
};

struct Collective {
  const char *call;
  MPI_Comm comm;
  int rank;
  int size;
  float *data;
  uint64_t count;
  bool average;
  uint64_t chunk_bytes;  // the compressed algorithms' pipeline chunk (comm/chunk_plan.hpp)
  bool caller_waits;     // the caller blocks on this call: nothing of its own overlaps it
  dlk_comm_report &report;
};

// dense_algorithms.cpp
// native and ps hand MPI at most this many elements (16 MiB) a call. Open MPI
// allocates a temporary as large as the message for each reduction; glibc
// maps one of 32 MiB or more afresh every time (its mmap threshold cannot
// grow past 32 MiB), and faulting it in cost more than the transfer on
// Zen 5's VM: 64 MiB took 7.5x as long in one piece in shared memory and
// 2.9x at 10 Gbit/s (docs/comm.md "native in pieces").
constexpr uint64_t kMpiPieceElements = uint64_t(1) << 22;
void allreduce_native(const Collective &c);
void allreduce_ps(const Collective &c);
// ring_allreduce.cpp: scratch.sum holds the segment received (kept between calls).
void allreduce_ring(const Collective &c, Scratch &scratch);
// two_phase_allreduce.cpp: worker_residual holds count floats, server_residual
// the length of this rank's segment (split(count, size, rank)).
void allreduce_two_phase(const Collective &c, const dlk_codec_params &params,
                         float *worker_residual, float *server_residual, Scratch &scratch);
// topk_allreduce.cpp: worker_residual holds count floats.
void allreduce_topk(const Collective &c, const dlk_codec_params &params, float *worker_residual,
                    Scratch &scratch);

// data[i] /= size, in the same way on every rank that calls it.
void divide(float *data, uint64_t count, int size);

}  // namespace dlk::comm
