#include "comm/state_format.hpp"

#include <cstring>
#include <string>

#include "comm/algorithm.hpp"
#include "comm/error.hpp"

namespace dlk::comm {
namespace {

constexpr char kMagic[8] = {'D', 'L', 'K', 'C', 'O', 'M', 'M', '1'};
constexpr uint32_t kFormat = 1;

struct Header {
  char magic[8];
  uint32_t format, algorithm, rank, ranks;
  uint64_t count, calls, worker, server;
};

void expect(const char *call, const char *what, uint64_t saved, uint64_t here) {
  if (saved != here)
    throw_invalid(call, "state",
                  std::string("was saved with ") + what + " " + std::to_string(saved) +
                      "; this buffer has " + std::to_string(here));
}

// Any algorithm a buffer can run, never DEFAULT (resolved when a buffer is made).
bool runnable(uint32_t algorithm) {
  return algorithm <= INT32_MAX && algorithm != DLK_COMM_ALGO_DEFAULT &&
         known_algorithm(static_cast<int>(algorithm));
}

}  // namespace

size_t state_bytes(uint64_t worker_length, uint64_t server_length) {
  return sizeof(Header) + 4 * (worker_length + server_length);
}

void write_state(const StateHeader &header, const float *worker, uint64_t worker_length,
                 const float *server, uint64_t server_length, void *out) {
  Header h;
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.format = kFormat;
  h.algorithm = static_cast<uint32_t>(header.algorithm);
  h.rank = header.rank;
  h.ranks = header.ranks;
  h.count = header.count;
  h.calls = header.calls;
  h.worker = worker_length;
  h.server = server_length;
  auto *to = static_cast<unsigned char *>(out);
  std::memcpy(to, &h, sizeof h);
  to += sizeof h;
  if (worker_length) std::memcpy(to, worker, 4 * worker_length);
  to += 4 * worker_length;
  if (server_length) std::memcpy(to, server, 4 * server_length);
}

SavedState read_state(const char *call, const StateHeader &into, const void *state, size_t size) {
  Header saved;
  if (size < sizeof saved) throw_invalid(call, "size", "is smaller than a state header");
  std::memcpy(&saved, state, sizeof saved);
  if (std::memcmp(saved.magic, kMagic, sizeof kMagic) != 0 || saved.format != kFormat)
    throw_invalid(call, "state", "is not a libdlk_comm buffer state of format 1");
  if (!runnable(saved.algorithm))
    throw_invalid(call, "state", "names an unknown algorithm (" +
                                     std::to_string(saved.algorithm) + ")");
  const auto algorithm = static_cast<dlk_comm_algorithm>(saved.algorithm);
  if (into.algorithm != DLK_COMM_ALGO_AUTO && algorithm != into.algorithm)
    throw_invalid(call, "state",
                  std::string("was saved by a buffer running ") + algorithm_name(algorithm) +
                      "; this one runs " + algorithm_name(into.algorithm));
  expect(call, "rank", saved.rank, into.rank);
  expect(call, "rank count", saved.ranks, into.ranks);
  expect(call, "count", saved.count, into.count);
  // Checked against what the algorithm keeps, not taken from the state: the
  // residuals are indexed by count and segment, whatever a file says.
  const ResidualLengths lengths = residual_lengths(algorithm, into.count, into.ranks, into.rank);
  expect(call, "worker residual length", saved.worker, lengths.worker);
  expect(call, "server residual length", saved.server, lengths.server);
  const uint64_t floats = (size - sizeof saved) / 4;
  if ((size - sizeof saved) % 4 != 0 || floats < saved.worker ||
      floats - saved.worker != saved.server)
    throw_invalid(call, "size",
                  "is " + std::to_string(size) + "; the state's header says " +
                      std::to_string(state_bytes(saved.worker, saved.server)));
  const auto *residuals = static_cast<const unsigned char *>(state) + sizeof saved;
  return {{algorithm, saved.rank, saved.ranks, saved.count, saved.calls},
          residuals,
          residuals + 4 * saved.worker,
          saved.worker,
          saved.server};
}

}  // namespace dlk::comm
