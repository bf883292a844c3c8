// topk: every rank compresses its gradient (with its worker residual) into
// (index, value) pairs, chunk by chunk (comm/chunk_plan.hpp), and sends each
// chunk's message to every other rank; every rank sums the P messages of a chunk
// in rank order into zeros, so every rank holds the same bits. Sparse sums do not
// stay sparse, which is why there is no second, server-side phase.
// Pipelined as the two-phase algorithms are: chunk c + 1 is encoded and sent
// before chunk c is waited for and summed. A message's size (sampled topk may
// keep fewer than k pairs) is what MPI says arrived, at most the chunk's
// capacity, which every receive posts; it travels as pieces below MPI's eager
// limit (comm/message_pieces.hpp).
#include <algorithm>
#include <vector>

#include "comm/algorithms.hpp"
#include "comm/chunk_plan.hpp"
#include "comm/error.hpp"
#include "comm/message_frames.hpp"
#include "comm/message_pieces.hpp"
#include "comm/pipeline_requests.hpp"
#include "comm/polite_wait.hpp"
#include "comm/stopwatch.hpp"

namespace dlk::comm {
namespace {

constexpr int kTopkTag = 3;

class Topk {
 public:
  Topk(const Collective &c, const dlk_codec_params &params, float *worker_residual,
       Scratch &scratch, PipelineRequests &requests)
      : c_(c),
        p_(c.size),
        r_(c.rank),
        chunks_(plan_chunks(c.call, params, c.count, {0, c.count}, c.chunk_bytes)),
        worker_residual_(worker_residual),
        scratch_(scratch),
        requests_(requests) {
    uint64_t at = 0;
    for (const Chunk &chunk : chunks_) {
      slots_.push_back(at);
      at += p_ * chunk.capacity;
    }
    scratch_.gathered.resize(at);
    sizes_.assign(chunks_.size(), std::vector<uint64_t>(p_, 0));
  }

  void run() {
    for (size_t k = 0; k < chunks_.size(); ++k)
      for (int i = 0; i < p_; ++i)
        if (i != r_)
          for (uint64_t j = 0; j < pieces_of(chunks_[k].capacity); ++j) {
            const Span at = piece(chunks_[k].capacity, j);
            requests_.receives.push_back(MPI_REQUEST_NULL);
            check_mpi(c_.call, "MPI_Irecv",
                      MPI_Irecv(slot(k, i) + at.begin, static_cast<int>(at.length), MPI_BYTE, i,
                                kTopkTag, c_.comm, &requests_.receives.back()));
          }
    encode(0);
    for (size_t k = 0; k < chunks_.size(); ++k) {
      if (k + 1 < chunks_.size()) encode(k + 1);
      sum(k);
    }
    timed(c_.report.network_seconds, [&] { polite_wait_all(c_.call, requests_.sends); });
  }

 private:
  uint8_t *slot(size_t k, int rank) {
    return scratch_.gathered.data() + slots_[k] + rank * chunks_[k].capacity;
  }

  // This rank's message of chunk k, straight into its own slot, sent from there.
  void encode(size_t k) {
    const Chunk &chunk = chunks_[k];
    size_t written = 0;
    timed(c_.report.encode_seconds, [&] {
      check_codec(c_.call, dlk_compress_encode(&chunk.params, c_.data + chunk.begin,
                                               worker_residual_ + chunk.begin, chunk.length,
                                               slot(k, r_), chunk.capacity, &written));
    });
    sizes_[k][r_] = written;
    // As many pieces as the capacity needs, the last ones short or empty: the
    // receivers know only the capacity.
    for (int offset = 1; offset < p_; ++offset) {
      for (uint64_t j = 0; j < pieces_of(chunk.capacity); ++j) {
        const Span at = piece(written, j);
        requests_.sends.push_back(MPI_REQUEST_NULL);
        check_mpi(c_.call, "MPI_Isend",
                  MPI_Isend(slot(k, r_) + at.begin, static_cast<int>(at.length), MPI_BYTE,
                            (r_ + offset) % p_, kTopkTag, c_.comm, &requests_.sends.back()));
      }
      c_.report.wire_bytes_sent += written;
    }
  }

  // Waits for the peers' messages of chunk k, then sums all P in rank order.
  void sum(size_t k) {
    const Chunk &chunk = chunks_[k];
    for (int i = 0; i < p_; ++i) {
      if (i == r_) continue;
      std::vector<uint64_t> bytes(pieces_of(chunk.capacity));
      for (uint64_t &b : bytes) {
        MPI_Status status;
        timed(c_.report.network_seconds, [&] {
          polite_wait(c_.call, requests_.receives[next_receive_++], &status);
        });
        int count = 0;
        check_mpi(c_.call, "MPI_Get_count", MPI_Get_count(&status, MPI_BYTE, &count));
        b = static_cast<uint64_t>(std::max(count, 0));
      }
      sizes_[k][i] = joined_size(c_.call, i, bytes, chunk.capacity);
      c_.report.wire_bytes_received += sizes_[k][i];
    }
    const Frames frames = frame_slots(c_.call, sizes_[k], chunk.capacity);
    float *out = c_.data + chunk.begin;
    timed(c_.report.decode_seconds, [&] {
      std::fill(out, out + chunk.length, 0.0f);
      sum_messages(c_.call, scratch_.gathered.data() + slots_[k], frames, out, chunk.length,
                   Into::add);
      if (c_.average) divide(out, chunk.length, p_);
    });
  }

  const Collective &c_;
  const int p_, r_;
  const std::vector<Chunk> chunks_;
  float *worker_residual_;
  Scratch &scratch_;
  PipelineRequests &requests_;
  std::vector<uint64_t> slots_;                // per chunk: its P slots' offset
  std::vector<std::vector<uint64_t>> sizes_;  // per chunk and rank: message bytes
  size_t next_receive_ = 0;                    // receives complete in the order posted
};

}  // namespace

void allreduce_topk(const Collective &c, const dlk_codec_params &params, float *worker_residual,
                    Scratch &scratch) {
  with_pipeline_requests(scratch, [&](PipelineRequests &requests) {
    Topk(c, params, worker_residual, scratch, requests).run();
  });
}

}  // namespace dlk::comm
