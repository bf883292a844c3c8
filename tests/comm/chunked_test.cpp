// The compressed algorithms pipelined in chunks (comm/chunk_plan.hpp): counts
// that divide by neither the chunk nor the rank count, several chunks per call,
// the same bits on every rank, and for the two-phase codecs (nearest rounding)
// the bits of the unchunked call, residuals included, over several calls. The
// ring, whose segments travel in chunks of the same DLK_COMM_CHUNK_BYTES: the
// exact sum with several chunks per segment.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/comm/mpi_support.hpp"

using namespace dlk_test;

namespace {

// The smallest chunk (1024 floats, whole blocks of every codec) and
// the largest (every buffer here one chunk).
constexpr const char *kSmallChunk = "4096", *kOneChunk = "268435456";

// A communicator made with DLK_COMM_CHUNK_BYTES = bytes (restored after).
dlk::comm::Communicator communicator_with_chunk(const char *bytes) {
  const char *old = std::getenv("DLK_COMM_CHUNK_BYTES");
  const std::string saved = old ? old : "";
  setenv("DLK_COMM_CHUNK_BYTES", bytes, 1);
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  if (old)
    setenv("DLK_COMM_CHUNK_BYTES", saved.c_str(), 1);
  else
    unsetenv("DLK_COMM_CHUNK_BYTES");
  return comm;
}

bool same_bits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), 4 * a.size()) == 0;
}

}  // namespace

TEST_CASE("chunked compressed all-reduce: the unchunked bits, on every rank",
          "[comm][compressed][chunks]") {
  dlk::comm::Communicator chunked = communicator_with_chunk(kSmallChunk);
  dlk::comm::Communicator whole = communicator_with_chunk(kOneChunk);
  const int r = chunked.rank();
  for (const dlk_comm_algorithm algorithm :
       {DLK_COMM_ALGO_ONEBIT, DLK_COMM_ALGO_INT8, DLK_COMM_ALGO_INT4, DLK_COMM_ALGO_FP16,
        DLK_COMM_ALGO_BF16, DLK_COMM_ALGO_TOPK})
    for (const uint64_t count : {uint64_t(2), uint64_t(9001), uint64_t(40009), uint64_t(100003)}) {
      CAPTURE(dlk_comm_algorithm_name(algorithm), count);
      dlk_comm_config c = config_of(algorithm, true);
      // topk's chunks hold at least 16384 / fraction elements: 18204 here.
      c.topk_fraction = 0.9;
      dlk::comm::Buffer a(chunked, count, c), b(whole, count, c);
      for (int call = 0; call < 3; ++call) {  // the residuals carry over
        std::vector<float> x(count), y(count);
        for (uint64_t i = 0; i < count; ++i) x[i] = y[i] = random_value(r, i, call);
        const dlk_comm_report report = a.allreduce(x.data());
        b.allreduce(y.data());
        CHECK(same_on_all_ranks(x));
        // topk keeps each chunk's share of k, not the k largest of the buffer.
        if (algorithm != DLK_COMM_ALGO_TOPK) CHECK(same_bits(x, y));
        if (count == 40009 && chunked.size() > 1 && algorithm != DLK_COMM_ALGO_TOPK)
          CHECK(report.wire_bytes_sent < 4 * count * 2);
      }
    }
}

TEST_CASE("ring in chunks: the exact sum on every rank", "[comm][dense][chunks]") {
  dlk::comm::Communicator chunked = communicator_with_chunk(kSmallChunk);
  const int p = chunked.size(), r = chunked.rank();
  for (const uint64_t count : {uint64_t(2), uint64_t(9001), uint64_t(40009), uint64_t(100003)}) {
    CAPTURE(count);
    dlk::comm::Buffer buffer(chunked, count, config_of(DLK_COMM_ALGO_RING));
    for (int call = 0; call < 2; ++call) {  // the kept receive segment is reused
      std::vector<float> data(count);
      for (uint64_t i = 0; i < count; ++i) data[i] = integer_value(r + call, i);
      buffer.allreduce(data.data());
      bool exact = true;
      for (uint64_t i = 0; i < count; ++i) {
        float sum = 0;
        for (int k = 0; k < p; ++k) sum += integer_value(k + call, i);
        exact = exact && data[i] == sum;
      }
      CHECK(exact);
      CHECK(same_on_all_ranks(data));
    }
  }
}

TEST_CASE("chunked stochastic rounding: the same bits on every rank", "[comm][compressed][chunks]") {
  dlk::comm::Communicator comm = communicator_with_chunk(kSmallChunk);
  for (const dlk_comm_algorithm algorithm : {DLK_COMM_ALGO_INT8, DLK_COMM_ALGO_INT4}) {
    CAPTURE(dlk_comm_algorithm_name(algorithm));
    dlk_comm_config c = config_of(algorithm);
    c.stochastic_rounding = 1;
    c.seed = 17;
    const uint64_t count = 12345;
    dlk::comm::Buffer buffer(comm, count, c);
    std::vector<float> x(count);
    for (uint64_t i = 0; i < count; ++i) x[i] = random_value(comm.rank(), i);
    buffer.allreduce(x.data());
    CHECK(same_on_all_ranks(x));
  }
}

TEST_CASE("ranks with different chunk sizes get a mismatch", "[comm][compressed][chunks]") {
  dlk::comm::Communicator comm =
      communicator_with_chunk(world_rank() == world_size() - 1 ? "8192" : kSmallChunk);
  dlk::comm::Buffer buffer(comm, 100, config_of(DLK_COMM_ALGO_INT8));
  std::vector<float> x(100, 1.0f);
  dlk_comm_report report;
  const dlk_comm_status status = dlk_comm_allreduce(buffer.get(), x.data(), &report);
  if (world_size() > 1) {
    CHECK(status == DLK_COMM_MISMATCH);
    CHECK(std::string(dlk_comm_last_error()).find("DLK_COMM_CHUNK_BYTES") != std::string::npos);
  } else {
    CHECK(status == DLK_COMM_SUCCESS);
  }
}

TEST_CASE("DLK_COMM_CHUNK_BYTES out of range is an error naming it", "[comm][compressed][chunks]") {
  setenv("DLK_COMM_CHUNK_BYTES", "4095", 1);
  dlk_comm comm = nullptr;
  CHECK(dlk_comm_create(MPI_COMM_WORLD, &comm) == DLK_COMM_INVALID_ARGUMENT);
  CHECK(std::string(dlk_comm_last_error()).find("'DLK_COMM_CHUNK_BYTES' has value '4095'") !=
        std::string::npos);
  unsetenv("DLK_COMM_CHUNK_BYTES");
}

// Results of 48 MiB and more are decoded into a chunk-long staging buffer and
// streamed to the caller's (comm/streaming_output.hpp): the bits of the one-chunk
// call (whose staging is the whole segment), on every rank, residuals carried over.
TEST_CASE("chunked compressed all-reduce of a streamed result", "[comm][compressed][chunks]") {
  dlk::comm::Communicator chunked = communicator_with_chunk("1048576");
  dlk::comm::Communicator whole = communicator_with_chunk(kOneChunk);
  const int r = chunked.rank();
  const uint64_t count = (uint64_t(48) << 20) / 4 + 4099;  // divisible by neither chunk nor P
  for (const dlk_comm_algorithm algorithm : {DLK_COMM_ALGO_ONEBIT, DLK_COMM_ALGO_INT4}) {
    CAPTURE(dlk_comm_algorithm_name(algorithm));
    const dlk_comm_config c = config_of(algorithm, true);
    dlk::comm::Buffer a(chunked, count, c), b(whole, count, c);
    for (int call = 0; call < 2; ++call) {
      std::vector<float> x(count), y(count);
      for (uint64_t i = 0; i < count; ++i) x[i] = y[i] = random_value(r, i, call);
      a.allreduce(x.data());
      b.allreduce(y.data());
      CHECK(same_on_all_ranks(x));
      CHECK(same_bits(x, y));
    }
  }
}
