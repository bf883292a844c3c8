// onebit, int8, int4, fp16, bf16: the two-phase compressed all-reduce.
//   1. every rank compresses segment j of its gradient (with its worker-side
//      residual) for rank j, and the messages go all-to-all;
//   2. rank r decodes the P messages of its segment, sums them in rank order,
//      re-compresses the sum with its server-side residual, and the P messages
//      are all-gathered; every rank decodes all of them (the owner too), so every
//      rank holds the same bits.
// Message sizes follow from (params, segment length) alone, so no sizes travel.
#include <climits>
#include <string>
#include <vector>

#include "comm/algorithms.hpp"
#include "comm/error.hpp"
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
  std::vector<int> sizes(p), displacements(p);
  uint64_t total = 0;
  for (int j = 0; j < p; ++j) {
    const uint64_t length = split(c.count, p, j).length;
    size_t bytes = 0;
    check_codec(c.call, dlk_compress_max_message_size(&params, length, &bytes));
    if (total + bytes > INT_MAX || uint64_t(p) * bytes > INT_MAX)
      throw_invalid(c.call, "count",
                    "is " + std::to_string(c.count) + ": its " +
                        dlk_compress_algorithm_name(params.algorithm) +
                        " messages would exceed the 2 GiB one MPI call can move");
    sizes[j] = static_cast<int>(bytes);
    displacements[j] = static_cast<int>(total);
    total += bytes;
  }
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
  incoming.resize(static_cast<size_t>(p) * my_size);
  std::vector<int> incoming_sizes(p, my_size), incoming_displacements(p);
  for (int i = 0; i < p; ++i) incoming_displacements[i] = i * my_size;
  timed(c.report.network_seconds, [&] {
    check_mpi(c.call, "MPI_Alltoallv",
              MPI_Alltoallv(outgoing.data(), sizes.data(), displacements.data(), MPI_BYTE,
                            incoming.data(), incoming_sizes.data(),
                            incoming_displacements.data(), MPI_BYTE, c.comm));
  });

  // The owner's sum, in rank order, then its own compressed message.
  std::vector<float> &sum = scratch.sum;
  sum.resize(mine.length);
  timed(c.report.decode_seconds, [&] {
    for (int i = 0; i < p; ++i) {
      const uint8_t *message = incoming.data() + static_cast<size_t>(i) * my_size;
      check_codec(c.call, i == 0 ? dlk_compress_decode(message, my_size, sum.data(), mine.length)
                                 : dlk_compress_decode_add(message, my_size, sum.data(),
                                                           mine.length));
    }
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
