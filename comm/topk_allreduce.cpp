// topk: every rank compresses its whole gradient (with its worker residual) into
// (index, value) pairs; the messages are all-gathered and every rank sums them in
// rank order into zeros, so every rank holds the same bits. Sparse sums do not
// stay sparse, which is why there is no second, server-side phase.
#include <vector>

#include "comm/algorithms.hpp"
#include "comm/error.hpp"
#include "comm/message_frames.hpp"
#include "comm/stopwatch.hpp"

namespace dlk::comm {

void allreduce_topk(const Collective &c, const dlk_codec_params &params, float *worker_residual,
                    Scratch &scratch) {
  const int p = c.size;
  size_t capacity = 0;
  check_codec(c.call, dlk_compress_max_message_size(&params, c.count, &capacity));
  std::vector<uint8_t> &mine = scratch.outgoing;
  mine.resize(capacity);
  size_t my_size = 0;
  timed(c.report.encode_seconds, [&] {
    check_codec(c.call, dlk_compress_encode(&params, c.data, worker_residual, c.count,
                                            mine.data(), capacity, &my_size));
  });

  std::vector<uint64_t> sizes(p);
  uint64_t mine64 = my_size;
  timed(c.report.network_seconds, [&] {
    check_mpi(c.call, "MPI_Allgather",
              MPI_Allgather(&mine64, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, c.comm));
  });
  // A peer's size is checked before it places anything: no message of this
  // call (the same count and parameters on every rank, agreed) exceeds capacity;
  // every rank has the same sizes, so all ranks refuse together.
  const Frames frames = frame_messages(c.call, sizes, capacity);
  std::vector<uint8_t> &gathered = scratch.gathered;
  gathered.resize(frames.total);
  timed(c.report.network_seconds, [&] {
    check_mpi(c.call, "MPI_Allgatherv",
              MPI_Allgatherv(mine.data(), static_cast<int>(my_size), MPI_BYTE, gathered.data(),
                             frames.sizes.data(), frames.displacements.data(), MPI_BYTE, c.comm));
  });
  timed(c.report.decode_seconds, [&] {
    for (uint64_t i = 0; i < c.count; ++i) c.data[i] = 0.0f;
    sum_messages(c.call, gathered.data(), frames, c.data, c.count, Into::add);
    if (c.average) divide(c.data, c.count, p);
  });
  const uint64_t peers = static_cast<uint64_t>(p - 1);
  c.report.wire_bytes_sent += peers * my_size;
  c.report.wire_bytes_received += frames.total - my_size;
}

}  // namespace dlk::comm
