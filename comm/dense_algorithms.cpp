// native (MPI_Allreduce) and ps (MPI_Reduce to rank 0, MPI_Bcast back). MPI
// counts are int, so both go in pieces of at most 2^30 elements.
#include <algorithm>

#include "comm/algorithms.hpp"
#include "comm/error.hpp"
#include "comm/polite_wait.hpp"
#include "comm/stopwatch.hpp"

namespace dlk::comm {
namespace {

constexpr uint64_t kMaxPiece = uint64_t(1) << 30;

template <class F>
void in_pieces(uint64_t count, F &&f) {
  for (uint64_t begin = 0; begin < count; begin += kMaxPiece)
    f(begin, static_cast<int>(std::min(kMaxPiece, count - begin)));
}

}  // namespace

void divide(float *data, uint64_t count, int size) {
  const auto p = static_cast<float>(size);
  for (uint64_t i = 0; i < count; ++i) data[i] /= p;
}

// Open MPI's MPI_Iallreduce (libnbc) runs a binomial reduce then broadcast
// whenever P < 4 or the buffer is MPI_IN_PLACE: 2 n (P - 1) bytes through rank
// 0, where MPI_Allreduce's ring moves 2 n (P - 1) / P per rank. Measured (P = 2,
// 64 MiB, Intel Xeon model 207): 2.1x MPI_Allreduce's time on a 1 Gbit/s link,
// 2.5x in shared memory, polite or busy wait alike; docs/comm.md). So a call
// the caller blocks on runs MPI_Allreduce: nothing of the caller's would run
// beside it, and its busy-poll lasts the transfer only (the agreement before it
// waited out the slower rank politely). A call that runs beside the caller's
// work (iallreduce, the synchronizer) keeps MPI_Iallreduce and the polite wait,
// which leave the compute threads their cores.
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
                MPI_Iallreduce(MPI_IN_PLACE, c.data + begin, n, MPI_FLOAT, MPI_SUM, c.comm,
                               &request));
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
