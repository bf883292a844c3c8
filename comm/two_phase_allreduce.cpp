// onebit, int8, int4, fp16, bf16: the two-phase compressed all-reduce, pipelined
// in chunks (comm/chunk_plan.hpp).
//   1. every rank compresses chunk k of segment j of its gradient (with its
//      worker-side residual) and sends it to rank j, the segment's owner;
//   2. the owner decodes the P messages of its chunk k, sums them in rank order,
//      re-compresses the sum with its server-side residual and sends that to
//      every rank; every rank decodes it (the owner too), so every rank holds
//      the same bits.
// One thread runs it as a software pipeline: encode chunk k + 1 of every segment
// (and send it), then reduce chunk k of the own segment (and send the result),
// then decode the results of chunk k - 1 from the other owners. While it waits
// for chunk k, chunk k + 1 is already on the wire; while it encodes, MPI moves
// what was sent before. Message sizes follow from (params, chunk length) alone,
// so no sizes travel. Ranks differ in nothing but which segment they own. Each
// message travels as pieces below MPI's eager limit (comm/message_pieces.hpp).
#include <algorithm>
#include <string>
#include <vector>

#include "comm/algorithms.hpp"
#include "comm/chunk_plan.hpp"
#include "comm/error.hpp"
#include "comm/message_frames.hpp"
#include "comm/message_pieces.hpp"
#include "comm/pipeline_requests.hpp"
#include "comm/polite_wait.hpp"
#include "comm/segments.hpp"
#include "comm/stopwatch.hpp"
#include "comm/streaming_output.hpp"

namespace dlk::comm {
namespace {

constexpr int kToOwnerTag = 1, kFromOwnerTag = 2;

class TwoPhase {
 public:
  TwoPhase(const Collective &c, const dlk_codec_params &params, float *worker_residual,
           float *server_residual, Scratch &scratch, PipelineRequests &requests)
      : c_(c),
        p_(c.size),
        r_(c.rank),
        mine_(split(c.count, c.size, c.rank)),
        worker_residual_(worker_residual),
        server_residual_(server_residual),
        scratch_(scratch),
        requests_(requests) {
    for (int j = 0; j < p_; ++j)
      chunks_.push_back(plan_chunks(c.call, params, c.count, split(c.count, p_, j), c.chunk_bytes));
    for (const auto &segment : chunks_) rounds_ = std::max(rounds_, segment.size());
    lay_out();
  }

  void run() {
    post_receives();
    encode_round(0);
    for (size_t k = 0; k < rounds_; ++k) {
      if (k + 1 < rounds_) encode_round(k + 1);
      if (k < own().size()) reduce(k);
      if (k > 0) gather(k - 1);
    }
    gather(rounds_ - 1);
    wait(requests_.sends);
  }

 private:
  const std::vector<Chunk> &own() const { return chunks_[r_]; }
  int peer(int offset) const { return (r_ + offset) % p_; }

  // outgoing: chunk k of segment j for its owner j != r; then the owner's results.
  // incoming: per own chunk k, P slots (slot r: this rank's own message).
  // gathered: chunk k of segment j != r as its owner sent it back.
  void lay_out() {
    uint64_t out = 0, gathered = 0;
    to_owner_.resize(p_);
    from_owner_.resize(p_);
    for (int j = 0; j < p_; ++j)
      for (const Chunk &chunk : chunks_[j]) {
        to_owner_[j].push_back(out);
        from_owner_[j].push_back(gathered);
        if (j != r_) {
          out += chunk.capacity;
          gathered += chunk.capacity;
        }
      }
    uint64_t in = 0, longest = 0;
    for (const Chunk &chunk : own()) {
      result_.push_back(out);
      out += chunk.capacity;
      slots_.push_back(in);
      in += p_ * chunk.capacity;
      longest = std::max<uint64_t>(longest, chunk.length);
    }
    if (stream_)  // the staging of every owner's decoded chunk
      for (const auto &segment : chunks_)
        for (const Chunk &chunk : segment) longest = std::max<uint64_t>(longest, chunk.length);
    scratch_.outgoing.resize(out);
    scratch_.incoming.resize(in);
    scratch_.gathered.resize(gathered);
    // One chunk's sum, reused by every chunk: it stays in the L2 from the decode of
    // the P messages through the re-encode, instead of a segment-long array whose
    // every line is read from memory and written back (32 MiB each way at P = 2).
    // The decoded results are staged in it too (comm/streaming_output.hpp).
    scratch_.sum.resize(longest);
  }

  void post_receives() {
    receive_to_owner_.assign(own().size(), std::vector<size_t>(p_));
    for (size_t k = 0; k < own().size(); ++k)
      for (int i = 0; i < p_; ++i)
        if (i != r_)
          receive_to_owner_[k][i] = receive(scratch_.incoming.data() + slots_[k] +
                                                i * own()[k].capacity,
                                            own()[k].capacity, i, kToOwnerTag);
    receive_from_owner_.assign(p_, {});
    for (int j = 0; j < p_; ++j)
      if (j != r_)
        for (size_t k = 0; k < chunks_[j].size(); ++k)
          receive_from_owner_[j].push_back(receive(scratch_.gathered.data() + from_owner_[j][k],
                                                   chunks_[j][k].capacity, j, kFromOwnerTag));
  }

  // Posts the receives of a message's pieces (comm/message_pieces.hpp); returns
  // the index of the first.
  size_t receive(uint8_t *to, uint64_t bytes, int from, int tag) {
    const size_t first = requests_.receives.size();
    for (uint64_t i = 0; i < pieces_of(bytes); ++i) {
      const Span at = piece(bytes, i);
      requests_.receives.push_back(MPI_REQUEST_NULL);
      check_mpi(c_.call, "MPI_Irecv",
                MPI_Irecv(to + at.begin, static_cast<int>(at.length), MPI_BYTE, from, tag,
                          c_.comm, &requests_.receives.back()));
    }
    c_.report.wire_bytes_received += bytes;
    return first;
  }

  void send(const uint8_t *from, uint64_t bytes, int to, int tag) {
    for (uint64_t i = 0; i < pieces_of(bytes); ++i) {
      const Span at = piece(bytes, i);
      requests_.sends.push_back(MPI_REQUEST_NULL);
      check_mpi(c_.call, "MPI_Isend",
                MPI_Isend(from + at.begin, static_cast<int>(at.length), MPI_BYTE, to, tag,
                          c_.comm, &requests_.sends.back()));
    }
    c_.report.wire_bytes_sent += bytes;
  }

  void encode(const Chunk &chunk, const float *input, float *residual, uint8_t *message) {
    size_t written = 0;
    timed(c_.report.encode_seconds, [&] {
      check_codec(c_.call, dlk_compress_encode(&chunk.params, input, residual, chunk.length,
                                               message, chunk.capacity, &written));
    });
    if (written != chunk.capacity)
      throw Error(DLK_COMM_INTERNAL_ERROR, std::string(c_.call) + ": " +
                                               dlk_compress_algorithm_name(chunk.params.algorithm) +
                                               " wrote a message of unexpected size");
  }

  // Phase 1, chunk k of every segment: the other owners' first (they wait for it).
  void encode_round(size_t k) {
    for (int offset = 1; offset <= p_; ++offset) {
      const int j = peer(offset);
      if (k >= chunks_[j].size()) continue;
      const Chunk &chunk = chunks_[j][k];
      uint8_t *message = j == r_ ? scratch_.incoming.data() + slots_[k] + r_ * chunk.capacity
                                 : scratch_.outgoing.data() + to_owner_[j][k];
      encode(chunk, c_.data + chunk.begin, worker_residual_ + chunk.begin, message);
      if (j != r_) send(message, chunk.capacity, j, kToOwnerTag);
    }
  }

  // Phase 2 at the owner: the sum of chunk k, its message to every rank, and its
  // own decode of that message.
  void reduce(size_t k) {
    const Chunk &chunk = own()[k];
    std::vector<uint64_t> sizes(p_, chunk.capacity);
    for (int i = 0; i < p_; ++i)
      if (i != r_) sizes[i] = received(receive_to_owner_[k][i], i, chunk.capacity);
    const Frames frames = frame_slots(c_.call, sizes, chunk.capacity);
    const uint64_t at = chunk.begin - mine_.begin;
    float *sum = scratch_.sum.data();
    timed(c_.report.decode_seconds, [&] {
      sum_messages(c_.call, scratch_.incoming.data() + slots_[k], frames, sum, chunk.length,
                   Into::overwrite);
      if (c_.average) divide(sum, chunk.length, p_);
    });
    uint8_t *result = scratch_.outgoing.data() + result_[k];
    encode(chunk, sum, server_residual_ + at, result);
    for (int offset = 1; offset < p_; ++offset) send(result, chunk.capacity, peer(offset), kFromOwnerTag);
    decode(result, chunk.capacity, chunk);
  }

  // Decodes the owners' results of chunk k.
  void gather(size_t k) {
    for (int offset = 1; offset < p_; ++offset) {
      const int j = peer(offset);
      if (k >= chunks_[j].size()) continue;
      const uint64_t size = received(receive_from_owner_[j][k], j, chunks_[j][k].capacity);
      decode(scratch_.gathered.data() + from_owner_[j][k], size, chunks_[j][k]);
    }
  }

  // Into the caller's buffer, through the staging when the result streams (the
  // owner's sum has been encoded by then: the staging is free).
  void decode(const uint8_t *message, uint64_t size, const Chunk &chunk) {
    float *out = c_.data + chunk.begin;
    timed(c_.report.decode_seconds, [&] {
      float *to = stream_ ? scratch_.sum.data() : out;
      check_codec(c_.call, dlk_compress_decode(message, size, to, chunk.length));
      if (stream_) copy_streaming(out, to, chunk.length);
    });
  }

  // Waits for the pieces of the message from `rank` whose first receive is
  // `first`; the message's bytes.
  uint64_t received(size_t first, int rank, uint64_t capacity) {
    std::vector<uint64_t> bytes(pieces_of(capacity));
    for (size_t i = 0; i < bytes.size(); ++i) {
      MPI_Status status;
      timed(c_.report.network_seconds,
            [&] { polite_wait(c_.call, requests_.receives[first + i], &status); });
      int count = 0;
      check_mpi(c_.call, "MPI_Get_count", MPI_Get_count(&status, MPI_BYTE, &count));
      bytes[i] = static_cast<uint64_t>(std::max(count, 0));
    }
    return joined_size(c_.call, rank, bytes, capacity);
  }

  void wait(std::vector<MPI_Request> &requests) {
    timed(c_.report.network_seconds, [&] { polite_wait_all(c_.call, requests); });
  }

  const Collective &c_;
  const int p_, r_;
  const Span mine_;
  const bool stream_ = streams_result(c_.count);
  float *worker_residual_, *server_residual_;
  Scratch &scratch_;
  PipelineRequests &requests_;
  std::vector<std::vector<Chunk>> chunks_;  // per segment
  size_t rounds_ = 0;                       // the most chunks of any segment
  std::vector<std::vector<uint64_t>> to_owner_, from_owner_;  // offsets, per segment and chunk
  std::vector<uint64_t> result_, slots_;                      // per own chunk
  std::vector<std::vector<size_t>> receive_to_owner_;    // own chunk, rank: first receive
  std::vector<std::vector<size_t>> receive_from_owner_;  // segment, chunk: first receive
};

}  // namespace

void allreduce_two_phase(const Collective &c, const dlk_codec_params &params,
                         float *worker_residual, float *server_residual, Scratch &scratch) {
  with_pipeline_requests(scratch, [&](PipelineRequests &requests) {
    TwoPhase(c, params, worker_residual, server_residual, scratch, requests).run();
  });
}

}  // namespace dlk::comm
