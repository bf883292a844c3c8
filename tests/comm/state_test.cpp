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
