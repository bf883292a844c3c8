// libFuzzer target: the checkpoint bytes dlk_comm_buffer_load_state reads, through
// comm::read_state, the function load_state uses. The input is the state as a
// caller hands it in (a guarded copy: a read past its end faults). It is read
// for two buffers: the one its header claims to come from (rank, rank count,
// count and algorithm taken from the header, made possible: at least one rank,
// the rank below the count), so that mutations reach the residual checks, and
// the same buffer still on auto. A rejected state must say so with
// DLK_COMM_INVALID_ARGUMENT; an accepted one must hold exactly the residuals its
// algorithm keeps, inside the input, and write back byte for byte as it came.
#include <cstring>
#include <vector>

#include "comm/algorithm.hpp"
#include "comm/error.hpp"
#include "comm/state_format.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace dlk::comm;
using dlk_fuzz::GuardedBuffer;
using dlk_fuzz::require;

// Where the header keeps what a buffer is (comm/state_format.hpp's layout).
constexpr size_t kAlgorithmAt = 12, kRankAt = 16, kRanksAt = 20, kCountAt = 24, kHeaderBytes = 56;

template <class T>
T field(const uint8_t *data, size_t size, size_t at) {
  T value{};
  if (at + sizeof value <= size) std::memcpy(&value, data + at, sizeof value);
  return value;
}

std::vector<float> floats(const unsigned char *from, uint64_t length) {
  std::vector<float> v(length);
  if (length) std::memcpy(v.data(), from, 4 * length);
  return v;
}

void read_into(const StateHeader &into, const uint8_t *state, size_t size) {
  SavedState saved;
  try {
    saved = read_state("fuzz", into, state, size);
  } catch (const Error &e) {
    require(e.status() == DLK_COMM_INVALID_ARGUMENT);
    return;
  }
  const ResidualLengths lengths =
      residual_lengths(saved.header.algorithm, into.count, into.ranks, into.rank);
  require(saved.worker_length == lengths.worker && saved.server_length == lengths.server);
  require(into.algorithm == DLK_COMM_ALGO_AUTO || saved.header.algorithm == into.algorithm);
  require(saved.header.rank == into.rank && saved.header.ranks == into.ranks &&
          saved.header.count == into.count);
  require(state_bytes(saved.worker_length, saved.server_length) == size);
  require(saved.worker == state + kHeaderBytes &&
          saved.server == saved.worker + 4 * saved.worker_length);

  const std::vector<float> worker = floats(saved.worker, saved.worker_length);
  const std::vector<float> server = floats(saved.server, saved.server_length);
  std::vector<uint8_t> written(size);
  write_state(saved.header, worker.data(), worker.size(), server.data(), server.size(),
              written.data());
  require(std::memcmp(written.data(), state, size) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  GuardedBuffer state(size);
  if (size) std::memcpy(state.data(), data, size);

  StateHeader claimed{};
  const uint32_t algorithm = field<uint32_t>(data, size, kAlgorithmAt);
  claimed.algorithm = algorithm >= DLK_COMM_ALGO_AUTO && algorithm <= DLK_COMM_ALGO_BF16
                          ? static_cast<dlk_comm_algorithm>(algorithm)
                          : DLK_COMM_ALGO_NATIVE;
  claimed.ranks = field<uint32_t>(data, size, kRanksAt);
  if (claimed.ranks == 0) claimed.ranks = 1;
  claimed.rank = field<uint32_t>(data, size, kRankAt) % claimed.ranks;
  claimed.count = field<uint64_t>(data, size, kCountAt);
  read_into(claimed, state.data(), size);

  StateHeader automatic = claimed;
  automatic.algorithm = DLK_COMM_ALGO_AUTO;
  read_into(automatic, state.data(), size);
  return 0;
}
