// Checkpoints: a buffer's state saved and restored gives exactly the same
// results afterwards; a state of another buffer is refused.
#include <catch2/catch.hpp>

#include "tests/comm/mpi_support.hpp"

using namespace dlk_test;

TEST_CASE("checkpointed residuals restore exactly", "[comm][state]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const int r = comm.rank();
  const uint64_t count = 3001;
  for (const dlk_comm_algorithm algorithm :
       {DLK_COMM_ALGO_ONEBIT, DLK_COMM_ALGO_INT4, DLK_COMM_ALGO_TOPK, DLK_COMM_ALGO_NATIVE}) {
    CAPTURE(dlk_comm_algorithm_name(algorithm));
    dlk_comm_config c = config_of(algorithm);
    c.stochastic_rounding = 1;
    c.warmup_steps = 1;
    dlk::comm::Buffer buffer(comm, count, c);
    auto step = [&](dlk::comm::Buffer &b, int s) {
      std::vector<float> data(count);
      for (uint64_t i = 0; i < count; ++i) data[i] = random_value(r, i, static_cast<uint64_t>(s));
      b.allreduce(data.data());
      return data;
    };
    for (int s = 0; s < 3; ++s) step(buffer, s);
    const std::vector<uint8_t> state = buffer.save_state();
    const std::vector<float> a = step(buffer, 3), b = step(buffer, 4);

    dlk::comm::Buffer restored(comm, count, c);
    restored.load_state(state);
    CHECK(step(restored, 3) == a);
    CHECK(step(restored, 4) == b);
    buffer.load_state(state);
    CHECK(step(buffer, 3) == a);

    dlk::comm::Buffer other(comm, count + 1, c);
    CHECK_THROWS_AS(other.load_state(state), dlk::comm::Error);
  }
}

namespace {

// Offsets in a state's header (comm/state_format.hpp).
constexpr size_t kAlgorithmAt = 12, kWorkerAt = 40, kServerAt = 48, kResidualsAt = 56;

template <class T>
void poke(std::vector<uint8_t> &state, size_t at, T value) {
  std::memcpy(state.data() + at, &value, sizeof value);
}

dlk_comm_status load_status(dlk::comm::Buffer &buffer, const std::vector<uint8_t> &state) {
  try {
    buffer.load_state(state);
    return DLK_COMM_SUCCESS;
  } catch (const dlk::comm::Error &e) {
    return e.status();
  }
}

}  // namespace

// A buffer still on auto takes the algorithm from the state, and once took the
// residual lengths too: a forged state then left residuals shorter than the
// count, which the next all-reduce overran (now fuzzed: fuzz_comm_state).
TEST_CASE("a state's residuals must be the ones its algorithm keeps", "[comm][state]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const uint64_t count = 3001;
  dlk::comm::Buffer onebit(comm, count, config_of(DLK_COMM_ALGO_ONEBIT));
  const std::vector<uint8_t> valid = onebit.save_state();
  dlk::comm::Buffer automatic(comm, count, config_of(DLK_COMM_ALGO_AUTO));
  const size_t auto_size = automatic.save_state().size();

  std::vector<uint8_t> short_residual(valid.begin(), valid.begin() + kResidualsAt + 4);
  poke<uint64_t>(short_residual, kWorkerAt, 1);
  poke<uint64_t>(short_residual, kServerAt, 0);
  CHECK(load_status(automatic, short_residual) == DLK_COMM_INVALID_ARGUMENT);
  CHECK_THAT(dlk_comm_last_error(), Catch::Contains("worker residual length"));

  // 4 (worker + server) wraps to 0: the lengths once passed the size check.
  std::vector<uint8_t> wrapping(valid.begin(), valid.begin() + kResidualsAt);
  poke<uint64_t>(wrapping, kWorkerAt, uint64_t(1) << 62);
  poke<uint64_t>(wrapping, kServerAt, uint64_t(1) << 62);
  CHECK(load_status(automatic, wrapping) == DLK_COMM_INVALID_ARGUMENT);

  // DEFAULT is no algorithm a buffer runs.
  std::vector<uint8_t> no_algorithm(valid.begin(), valid.begin() + kResidualsAt);
  poke<uint32_t>(no_algorithm, kAlgorithmAt, DLK_COMM_ALGO_DEFAULT);
  poke<uint64_t>(no_algorithm, kWorkerAt, 0);
  poke<uint64_t>(no_algorithm, kServerAt, 0);
  CHECK(load_status(automatic, no_algorithm) == DLK_COMM_INVALID_ARGUMENT);
  CHECK_THAT(dlk_comm_last_error(), Catch::Contains("unknown algorithm"));

  // Rejected loads left the buffer as it was; the valid state still loads.
  CHECK(automatic.save_state().size() == auto_size);
  CHECK(load_status(automatic, valid) == DLK_COMM_SUCCESS);
  CHECK(automatic.save_state() == valid);
}
