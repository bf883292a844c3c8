// ring: reduce-scatter then all-gather, 2 (P - 1) steps around the ring. Each
// segment (one per rank) travels in chunks, and a chunk is forwarded as soon as
// it is reduced: the reduction of chunk k overlaps the transfer of chunk k + 1,
// and step s + 1 starts before step s has finished.
//
// At step g, rank r receives from its left neighbour segment recv(g) and sends
// its right neighbour segment recv(g - 1), the one it has just finished:
//   reduce-scatter (g < P - 1): recv(g) = r - g - 1, added into data;
//   all-gather (t = g - (P - 1)): recv(g) = r - t, received straight into data.
// After the reduce-scatter, segment r + 1 is complete on rank r.
#include <algorithm>
#include <vector>

#include "comm/algorithms.hpp"
#include "comm/error.hpp"
#include "comm/segments.hpp"
#include "comm/stopwatch.hpp"

namespace dlk::comm {
namespace {

// A segment travels in chunks of about DLK_COMM_CHUNK_BYTES (default 1 MiB, the
// compressed pipeline's rule, agreed by every rank), cut evenly. 1 MiB rather
// than the 256 KiB of before: in shared memory each message costs a rendezvous
// and a single-copy system call whose page walks the receiver's core pays, and
// there the 256 KiB chunks ran 64 MiB at 1.17x MPI_Allreduce against 1.48x
// (16 MiB 0.86x against 0.97x; docs/comm.md, shared memory); on a 1 Gbit/s link
// a 1 MiB chunk is 8 ms of wire, still 32 chunks in flight per 64 MiB segment.
uint64_t chunks_of(uint64_t length, uint64_t chunk_elements) {
  return std::max<uint64_t>(1, (length + chunk_elements - 1) / chunk_elements);
}

class Ring {
 public:
  Ring(const Collective &c, std::vector<float> &incoming)
      : c_(c), p_(c.size), chunk_elements_(std::max<uint64_t>(1, c.chunk_bytes / 4)),
        incoming_(incoming) {}

  void run() {
    const int steps = 2 * (p_ - 1);
    sends_.resize(static_cast<size_t>(steps) + 1);
    // Kept between calls (Scratch): a fresh buffer of a large segment was
    // zero-filled and page-faulted every call (perf: ~15 % of a 64 MiB call in
    // shared memory in exc_page_fault, clear_page and memset).
    if (incoming_.size() < split(c_.count, p_, 0).length)
      incoming_.resize(split(c_.count, p_, 0).length);
    send_segment(segment(c_.rank), 0);
    for (int g = 0; g < steps; ++g) {
      const bool reduce = g < p_ - 1;
      const Span s = reduce ? segment(c_.rank - g - 1) : segment(c_.rank - (g - (p_ - 1)));
      // The all-gather writes into data: the reduce-scatter step that sent this
      // segment must have finished sending it.
      if (!reduce) wait_all(sends_[g - (p_ - 1)]);
      const uint64_t n = chunks_of(s.length, chunk_elements_);
      std::vector<MPI_Request> receives(n);
      for (uint64_t k = 0; k < n; ++k) {
        const Span chunk = split(s.length, n, k);
        float *to = reduce ? incoming_.data() + chunk.begin : c_.data + s.begin + chunk.begin;
        check_mpi(c_.call, "MPI_Irecv",
                  MPI_Irecv(to, static_cast<int>(chunk.length), MPI_FLOAT, left(), g, c_.comm,
                            &receives[k]));
        c_.report.wire_bytes_received += 4 * chunk.length;
      }
      for (uint64_t k = 0; k < n; ++k) {
        const Span chunk = split(s.length, n, k);
        timed(c_.report.network_seconds, [&] {
          check_mpi(c_.call, "MPI_Wait", MPI_Wait(&receives[k], MPI_STATUS_IGNORE));
        });
        float *mine = c_.data + s.begin + chunk.begin;
        if (reduce) {
          timed(c_.report.decode_seconds, [&] {
            const float *theirs = incoming_.data() + chunk.begin;
            for (uint64_t i = 0; i < chunk.length; ++i) mine[i] += theirs[i];
            if (c_.average && g == p_ - 2) divide(mine, chunk.length, p_);
          });
        }
        if (g + 1 < steps) send(mine, chunk.length, g + 1);
      }
    }
    for (auto &step : sends_) wait_all(step);
  }

 private:
  Span segment(int index) const { return split(c_.count, p_, ((index % p_) + p_) % p_); }
  int left() const { return (c_.rank + p_ - 1) % p_; }
  int right() const { return (c_.rank + 1) % p_; }

  void send(float *from, uint64_t length, int step) {
    MPI_Request request;
    check_mpi(c_.call, "MPI_Isend",
              MPI_Isend(from, static_cast<int>(length), MPI_FLOAT, right(), step, c_.comm,
                        &request));
    sends_[step].push_back(request);
    c_.report.wire_bytes_sent += 4 * length;
  }

  void send_segment(const Span &s, int step) {
    const uint64_t n = chunks_of(s.length, chunk_elements_);
    for (uint64_t k = 0; k < n; ++k) {
      const Span chunk = split(s.length, n, k);
      send(c_.data + s.begin + chunk.begin, chunk.length, step);
    }
  }

  void wait_all(std::vector<MPI_Request> &requests) {
    timed(c_.report.network_seconds, [&] {
      check_mpi(c_.call, "MPI_Waitall",
                MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                            MPI_STATUSES_IGNORE));
    });
    requests.clear();
  }

  const Collective &c_;
  const int p_;
  const uint64_t chunk_elements_;
  std::vector<float> &incoming_;
  std::vector<std::vector<MPI_Request>> sends_;  // per step
};

}  // namespace

void allreduce_ring(const Collective &c, Scratch &scratch) {
  if (c.size == 1) return;  // the sum, and the average, of one rank is its data
  Ring(c, scratch.sum).run();
}

}  // namespace dlk::comm
