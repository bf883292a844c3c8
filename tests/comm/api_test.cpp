// The C ABI's rules: names, argument errors naming the argument, the
// environment variable, properties.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "tests/comm/mpi_support.hpp"

using namespace dlk_test;

TEST_CASE("algorithm names round-trip, unknown names list the valid ones", "[comm][api]") {
  for (int a = DLK_COMM_ALGO_AUTO; a <= DLK_COMM_ALGO_BF16; ++a) {
    const auto algorithm = static_cast<dlk_comm_algorithm>(a);
    CHECK(dlk::comm::algorithm_from_name(dlk_comm_algorithm_name(algorithm)) == algorithm);
  }
  dlk_comm_algorithm a;
  CHECK(dlk_comm_algorithm_from_name("twobit", &a) == DLK_COMM_INVALID_ARGUMENT);
  CHECK(std::string(dlk_comm_last_error()).find("valid values: auto, native, ring") !=
        std::string::npos);
  CHECK(std::string(dlk_comm_status_name(DLK_COMM_MISMATCH)) == "mismatch");
}

TEST_CASE("invalid arguments are errors naming the argument", "[comm][api]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  dlk_comm_config c = dlk::comm::config();
  dlk_comm_buffer buffer = nullptr;
  c.topk_fraction = 0;
  CHECK(dlk_comm_buffer_create(comm.get(), 10, &c, &buffer) == DLK_COMM_INVALID_ARGUMENT);
  CHECK(std::string(dlk_comm_last_error()).find("'config->topk_fraction'") != std::string::npos);
  c = dlk::comm::config(DLK_COMM_ALGO_INT8);
  c.block_size = 17;
  CHECK(dlk_comm_buffer_create(comm.get(), 10, &c, &buffer) == DLK_COMM_INVALID_ARGUMENT);
  c = dlk::comm::config(static_cast<dlk_comm_algorithm>(99));
  CHECK(dlk_comm_buffer_create(comm.get(), 10, &c, &buffer) == DLK_COMM_INVALID_ARGUMENT);
  c = dlk::comm::config();
  REQUIRE(dlk_comm_buffer_create(comm.get(), 10, &c, &buffer) == DLK_COMM_SUCCESS);
  CHECK(dlk_comm_allreduce(buffer, nullptr, nullptr) == DLK_COMM_INVALID_ARGUMENT);
  CHECK(std::string(dlk_comm_last_error()) ==
        "dlk_comm_allreduce: argument 'data' must not be NULL");
  CHECK(dlk_comm_allreduce(nullptr, nullptr, nullptr) == DLK_COMM_INVALID_ARGUMENT);
  CHECK(dlk_comm_wait(nullptr, nullptr) == DLK_COMM_INVALID_ARGUMENT);
  dlk_comm_buffer_destroy(buffer);
  CHECK(dlk_comm_create(MPI_COMM_NULL, nullptr) == DLK_COMM_INVALID_ARGUMENT);
}

TEST_CASE("DLK_COMM_ALGO sets the default algorithm; unknown values are errors", "[comm][api]") {
  setenv("DLK_COMM_ALGO", "ring", 1);
  {
    dlk::comm::Communicator comm(MPI_COMM_WORLD);
    CHECK(comm.properties().default_algorithm == DLK_COMM_ALGO_RING);
    dlk::comm::Buffer buffer(comm, 5);
    std::vector<float> data(5, 1.0f);
    CHECK(buffer.allreduce(data.data()).algorithm == DLK_COMM_ALGO_RING);
  }
  setenv("DLK_COMM_ALGO", "twobit", 1);
  dlk_comm comm = nullptr;
  CHECK(dlk_comm_create(MPI_COMM_WORLD, &comm) == DLK_COMM_INVALID_ARGUMENT);
  CHECK(std::string(dlk_comm_last_error()) ==
        "dlk_comm_create: argument 'DLK_COMM_ALGO' has value 'twobit'; valid values: "
        "auto, native, ring, ps, onebit, topk, int8, int4, fp16, bf16");
  unsetenv("DLK_COMM_ALGO");
  dlk::comm::Communicator plain(MPI_COMM_WORLD);
  const dlk_comm_properties props = plain.properties();
  CHECK(props.default_algorithm == DLK_COMM_ALGO_NATIVE);
  CHECK(props.size == world_size());
  CHECK(props.rank == world_rank());
}

TEST_CASE("auto picks an algorithm for each buffer and keeps it", "[comm][auto]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  for (const uint64_t count : {uint64_t(16), uint64_t(1) << 20}) {
    dlk::comm::Buffer buffer(comm, count, config_of(DLK_COMM_ALGO_AUTO));
    std::vector<float> data(count);
    for (uint64_t i = 0; i < count; ++i) data[i] = integer_value(r, i);
    const dlk_comm_report first = buffer.allreduce(data.data());
    CHECK(first.algorithm != DLK_COMM_ALGO_AUTO);
    CHECK(same_on_all_ranks(data));
    const dlk_comm_report second = buffer.allreduce(data.data());
    CHECK(second.algorithm == first.algorithm);
    if (count == 16) {  // a few bytes: latency decides, compression cannot win
      CHECK(first.algorithm == DLK_COMM_ALGO_NATIVE);
      float sum = 0;
      for (int q = 0; q < p; ++q) sum += integer_value(q, 15);
      CHECK(data[15] == sum * p);
    }
  }
}

TEST_CASE("warm-up and size threshold run native first", "[comm][warmup]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  dlk_comm_config c = config_of(DLK_COMM_ALGO_ONEBIT);
  c.warmup_steps = 2;
  dlk::comm::Buffer buffer(comm, 4096, c);
  std::vector<float> data(4096, 1.0f);
  CHECK(buffer.allreduce(data.data()).algorithm == DLK_COMM_ALGO_NATIVE);
  CHECK(buffer.allreduce(data.data()).algorithm == DLK_COMM_ALGO_NATIVE);
  CHECK(buffer.allreduce(data.data()).algorithm == DLK_COMM_ALGO_ONEBIT);
  c.warmup_steps = 0;
  c.min_compress_bytes = 4 * 4096 + 1;
  dlk::comm::Buffer small(comm, 4096, c);
  CHECK(small.allreduce(data.data()).algorithm == DLK_COMM_ALGO_NATIVE);
}
