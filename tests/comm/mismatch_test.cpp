// Ranks that disagree get DLK_COMM_MISMATCH on every rank, quickly, and the
// communicator stays usable.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "tests/comm/mpi_support.hpp"

using namespace dlk_test;

namespace {

std::string g_message;  // dlk_comm_last_error() of the last allreduce_with

// Runs one all-reduce with this rank's (count, config); returns the status and
// checks that it came back within a second.
dlk_comm_status allreduce_with(dlk_comm comm, uint64_t count, const dlk_comm_config &config) {
  dlk_comm_buffer buffer = nullptr;
  REQUIRE(dlk_comm_buffer_create(comm, count, &config, &buffer) == DLK_COMM_SUCCESS);
  std::vector<float> data(count, 1.0f);
  const auto start = std::chrono::steady_clock::now();
  const dlk_comm_status status = dlk_comm_allreduce(buffer, data.data(), nullptr);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 1.0);
  g_message = dlk_comm_last_error();
  dlk_comm_buffer_destroy(buffer);
  return status;
}

}  // namespace

TEST_CASE("ranks that disagree all get a mismatch error naming the field", "[comm][mismatch]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const bool odd_one = comm.rank() == comm.size() - 1;

  SECTION("count") {
    const dlk_comm_config c = config_of(DLK_COMM_ALGO_NATIVE);
    CHECK(allreduce_with(comm.get(), odd_one ? 11 : 10, c) == DLK_COMM_MISMATCH);
    CHECK(g_message.find("'count' (from 10 to 11)") != std::string::npos);
  }
  SECTION("algorithm") {
    const dlk_comm_config c = config_of(odd_one ? DLK_COMM_ALGO_RING : DLK_COMM_ALGO_ONEBIT);
    CHECK(allreduce_with(comm.get(), 100, c) == DLK_COMM_MISMATCH);
    CHECK(g_message.find("'algorithm'") != std::string::npos);
  }
  SECTION("parameters") {
    dlk_comm_config c = config_of(DLK_COMM_ALGO_TOPK);
    if (odd_one) c.topk_fraction = 0.5;
    CHECK(allreduce_with(comm.get(), 100, c) == DLK_COMM_MISMATCH);
    c = config_of(DLK_COMM_ALGO_INT8, odd_one);
    CHECK(allreduce_with(comm.get(), 100, c) == DLK_COMM_MISMATCH);
    CHECK(g_message.find("'average'") != std::string::npos);
  }
  SECTION("a skipped call on one rank") {
    dlk::comm::Buffer a(comm, 64, config_of(DLK_COMM_ALGO_RING));
    std::vector<float> data(64, 1.0f);
    if (!odd_one) a.allreduce(data.data());
    if (odd_one) a.allreduce(data.data());  // everyone has made one call now
    const dlk_comm_config c = config_of(DLK_COMM_ALGO_RING);
    dlk_comm_buffer b = nullptr;
    REQUIRE(dlk_comm_buffer_create(comm.get(), 64, &c, &b) == DLK_COMM_SUCCESS);
    // The odd rank runs its second call on a, the others a first call on b.
    const dlk_comm_status status = dlk_comm_allreduce(odd_one ? a.get() : b, data.data(), nullptr);
    CHECK(status == DLK_COMM_MISMATCH);
    dlk_comm_buffer_destroy(b);
  }
  // Afterwards the communicator still works.
  std::vector<float> data(7, 1.0f);
  dlk::comm::Buffer ok(comm, 7, config_of(DLK_COMM_ALGO_RING));
  ok.allreduce(data.data());
  CHECK(data[6] == static_cast<float>(comm.size()));
}
