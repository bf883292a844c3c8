// onebit, int8, int4, fp16, bf16: the two-phase compressed all-reduce.
//   1. every rank compresses segment j of its gradient (with its worker-side
//      residual) for rank j, and the messages go all-to-all;
//   2. rank r decodes the P messages of its segment, sums them in rank order,
//      re-compresses the sum with its server-side residual, and the P messages
//      are all-gathered; every rank decodes all of them (the owner too), so every
//      rank holds the same bits.
// Message sizes follow from (params, segment length) alone, so no sizes travel.
#include <algorithm>
#include <string>
#include <vector>

#include "comm/algorithms.hpp"
#include "comm/error.hpp"
#include "comm/message_frames.hpp"
#include "comm/segments.hpp"
#include "comm/stopwatch.hpp"

namespace dlk::comm {
namespace {

void encode(const Collective &c, const dlk_codec_params &params, const float *input,
            float *residual, uint64_t length, uint8_t *message, int size) {
  size_t written = 0;
  check_codec(c.call, dlk_compress_encode(&params, input, residual, length, message,
                                          static_cast<size_t>(size), &written));
  if (written != static_cast<size_t>(size))
    throw Error(DLK_COMM_INTERNAL_ERROR, std::string(c.call) + ": " +
                                             dlk_compress_algorithm_name(params.algorithm) +
                                             " wrote a message of unexpected size");
}

}  // namespace

void allreduce_two_phase(const Collective &c, const dlk_codec_params &params,
                         float *worker_residual, float *server_residual, Scratch &scratch) {
  const int p = c.size, r = c.rank;
  std::vector<uint64_t> bytes(p);
  for (int j = 0; j < p; ++j)
    check_codec(c.call, dlk_compress_max_message_size(&params, split(c.count, p, j).length,
                                                      &bytes[j]));
  const uint64_t largest = *std::max_element(bytes.begin(), bytes.end());
  const Frames out = frame_messages(c.call, bytes, largest);
  // Every rank also checks the largest incoming total (rank totals differ), so
  // that all refuse together, and before any residual changes.
  frame_messages(c.call, std::vector<uint64_t>(p, largest), largest);
  const Frames in = frame_messages(c.call, std::vector<uint64_t>(p, bytes[r]), bytes[r]);
  const std::vector<int> &sizes = out.sizes, &displacements = out.displacements;
  const uint64_t total = out.total;
  const Span mine = split(c.count, p, r);
  const int my_size = sizes[r];

  // Phase 1: compress every segment for its owner; all-to-all.
  std::vector<uint8_t> &outgoing = scratch.outgoing;
  outgoing.resize(total);
  timed(c.report.encode_seconds, [&] {
    for (int j = 0; j < p; ++j) {
      const Span s = split(c.count, p, j);
      encode(c, params, c.data + s.begin, worker_residual + s.begin, s.length,
             outgoing.data() + displacements[j], sizes[j]);
    }
  });
  std::vector<uint8_t> &incoming = scratch.incoming;
  incoming.resize(in.total);
  timed(c.report.network_seconds, [&] {
    check_mpi(c.call, "MPI_Alltoallv",
              MPI_Alltoallv(outgoing.data(), sizes.data(), displacements.data(), MPI_BYTE,
                            incoming.data(), in.sizes.data(), in.displacements.data(), MPI_BYTE,
                            c.comm));
  });

  // The owner's sum, in rank order, then its own compressed message.
  std::vector<float> &sum = scratch.sum;
  sum.resize(mine.length);
  timed(c.report.decode_seconds, [&] {
    sum_messages(c.call, incoming.data(), in, sum.data(), mine.length, Into::overwrite);
    if (c.average) divide(sum.data(), mine.length, p);
  });
  // The owner's message goes straight to its place in the gathered buffer.
  std::vector<uint8_t> &gathered = scratch.gathered;
  gathered.resize(total);
  uint8_t *result = gathered.data() + displacements[r];
  timed(c.report.encode_seconds, [&] {
    encode(c, params, sum.data(), server_residual, mine.length, result, my_size);
  });

  // Phase 2: all-gather the owners' messages; everyone decodes every one.
  timed(c.report.network_seconds, [&] {
    check_mpi(c.call, "MPI_Allgatherv",
              MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gathered.data(), sizes.data(),
                             displacements.data(), MPI_BYTE, c.comm));
  });
  timed(c.report.decode_seconds, [&] {
    for (int j = 0; j < p; ++j) {
      const Span s = split(c.count, p, j);
      check_codec(c.call, dlk_compress_decode(gathered.data() + displacements[j], sizes[j],
                                              c.data + s.begin, s.length));
    }
  });

  const uint64_t others = total - static_cast<uint64_t>(my_size);
  const uint64_t peers = static_cast<uint64_t>(p - 1);
  c.report.wire_bytes_sent += others + peers * static_cast<uint64_t>(my_size);
  c.report.wire_bytes_received += peers * static_cast<uint64_t>(my_size) + others;
}

}  // namespace dlk::comm
