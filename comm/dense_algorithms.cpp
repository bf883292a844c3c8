// native (MPI_Allreduce) and ps (MPI_Reduce to rank 0, MPI_Bcast back), both
// in pieces of kMpiPieceElements (algorithms.hpp says why), one after another.
#include <algorithm>

#include "comm/algorithms.hpp"
#include "comm/error.hpp"
#include "comm/libnbc_ring.hpp"
#include "comm/polite_wait.hpp"
#include "comm/stopwatch.hpp"

namespace dlk::comm {
namespace {

template <class F>
void in_pieces(uint64_t count, F &&f) {
  for (uint64_t begin = 0; begin < count; begin += kMpiPieceElements)
    f(begin, static_cast<int>(std::min(kMpiPieceElements, count - begin)));
}

}  // namespace

void divide(float *data, uint64_t count, int size) {
  const auto p = static_cast<float>(size);
  for (uint64_t i = 0; i < count; ++i) data[i] /= p;
}

// A call the caller blocks on runs MPI_Allreduce: nothing of the caller's runs
// beside it, and its busy-poll lasts the transfer only (the agreement before it
// waited out the slower rank politely). A call that runs beside the caller's
// work (iallreduce, the synchronizer's buckets) runs MPI_Iallreduce with
// libnbc's ring and waits politely, leaving the compute threads their cores.
// Measured against the candidates (P = 2, nonblocking, Intel Xeon model 207,
// docs/comm.md "The overlapped native"), time over MPI_Allreduce's:
//   libnbc's default (binomial: P < 4 or in place): 2.1x at 1 Gbit/s, 2.6x in
//     shared memory (64 MiB); dlk-train wide 1.45 s exposed per step;
//   MPI_Allreduce on the worker thread: 1.3-2.0x at 1 Gbit/s, busy-polling a
//     core (0.7-1.0 CPU-seconds a second); wide 1.37 s exposed;
//   libnbc's ring, polite wait: 1.01x at 1 Gbit/s, 1.04x in shared memory at
//     64 MiB, 0.12 CPU-seconds a second on the link; wide 0.75-0.76 s exposed.
// In shared memory the ring beat the binomial tree at 64 KiB, 4 and 16 MiB, tied
// at 16 KiB and 1 MiB and split at 256 KiB (49 and 312 us against 174-180), so it
// is asked for at every size.
void allreduce_native(const Collective &c) {
  timed(c.report.network_seconds, [&] {
    in_pieces(c.count, [&](uint64_t begin, int n) {
      if (c.caller_waits) {
        check_mpi(c.call, "MPI_Allreduce",
                  MPI_Allreduce(MPI_IN_PLACE, c.data + begin, n, MPI_FLOAT, MPI_SUM, c.comm));
        return;
      }
      MPI_Request request;
      check_mpi(c.call, "MPI_Iallreduce",
                iallreduce_sum_libnbc_ring(c.data + begin, n, c.comm, &request));
      polite_wait(c.call, request, MPI_STATUS_IGNORE);
    });
  });
  if (c.average) timed(c.report.decode_seconds, [&] { divide(c.data, c.count, c.size); });
  // What MPI moves is its own business; report what a bandwidth-optimal
  // all-reduce moves (nccl-tests' busbw convention): 2 (P-1)/P of the buffer.
  const uint64_t bytes = 4 * c.count * 2 * static_cast<uint64_t>(c.size - 1) /
                         static_cast<uint64_t>(c.size);
  c.report.wire_bytes_sent += bytes;
  c.report.wire_bytes_received += bytes;
}

void allreduce_ps(const Collective &c) {
  timed(c.report.network_seconds, [&] {
    in_pieces(c.count, [&](uint64_t begin, int n) {
      float *piece = c.data + begin;
      check_mpi(c.call, "MPI_Reduce",
                c.rank == 0 ? MPI_Reduce(MPI_IN_PLACE, piece, n, MPI_FLOAT, MPI_SUM, 0, c.comm)
                            : MPI_Reduce(piece, nullptr, n, MPI_FLOAT, MPI_SUM, 0, c.comm));
    });
  });
  if (c.average && c.rank == 0)
    timed(c.report.decode_seconds, [&] { divide(c.data, c.count, c.size); });
  timed(c.report.network_seconds, [&] {
    in_pieces(c.count, [&](uint64_t begin, int n) {
      check_mpi(c.call, "MPI_Bcast", MPI_Bcast(c.data + begin, n, MPI_FLOAT, 0, c.comm));
    });
  });
  // The server receives every worker's buffer and sends the result to each.
  const uint64_t bytes = 4 * c.count, peers = static_cast<uint64_t>(c.size - 1);
  c.report.wire_bytes_sent += c.rank == 0 ? peers * bytes : bytes;
  c.report.wire_bytes_received += c.rank == 0 ? peers * bytes : bytes;
}

}  // namespace dlk::comm
