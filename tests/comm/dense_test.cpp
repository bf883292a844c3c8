// native, ring, ps: the exact sum (integer data) or the sum within float
// rounding, the same bits on every rank, for awkward sizes.
#include <catch2/catch.hpp>

#include <cmath>

#include "comm/algorithms.hpp"
#include "tests/comm/mpi_support.hpp"

using namespace dlk_test;

namespace {

// 0, 1, primes, counts below / not divisible by the rank count, and counts of
// several ring chunks when the chunk is small (comm:ranks3_small_chunks runs
// these with 1024-float chunks; the default is 256 Ki floats), and one count of
// more than one of native's and ps's MPI pieces.
const uint64_t kCounts[] = {0, 1, 2, 3, 5, 97, 1021, 65537, 3 * 65536 + 7,
                            dlk::comm::kMpiPieceElements + 5};
const dlk_comm_algorithm kDense[] = {DLK_COMM_ALGO_NATIVE, DLK_COMM_ALGO_RING, DLK_COMM_ALGO_PS};

// This rank's integer_value data for count elements, and whether data now holds
// their exact sum over the p ranks.
std::vector<float> integer_data(int rank, uint64_t count) {
  std::vector<float> data(count);
  for (uint64_t i = 0; i < count; ++i) data[i] = integer_value(rank, i);
  return data;
}
bool exact_integer_sums(const std::vector<float> &data, int p) {
  bool exact = true;
  for (uint64_t i = 0; i < data.size(); ++i) {
    float sum = 0;
    for (int k = 0; k < p; ++k) sum += integer_value(k, i);
    exact = exact && data[i] == sum;
  }
  return exact;
}

}  // namespace

TEST_CASE("dense algorithms give the exact sum of integers on every rank", "[comm][dense]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  for (const dlk_comm_algorithm algorithm : kDense)
    for (const uint64_t count : kCounts) {
      CAPTURE(dlk_comm_algorithm_name(algorithm), count);
      dlk::comm::Buffer buffer(comm, count, config_of(algorithm));
      std::vector<float> data = integer_data(r, count);
      const dlk_comm_report report = buffer.allreduce(data.data());
      CHECK(exact_integer_sums(data, p));
      CHECK(report.algorithm == algorithm);
      CHECK(report.logical_bytes == 4 * count);
      CHECK(same_on_all_ranks(data));
    }
}

TEST_CASE("dense algorithms average random floats within rounding, identically", "[comm][dense]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  const uint64_t count = 100003;
  for (const dlk_comm_algorithm algorithm : kDense) {
    CAPTURE(dlk_comm_algorithm_name(algorithm));
    dlk::comm::Buffer buffer(comm, count, config_of(algorithm, true));
    std::vector<float> data(count);
    for (uint64_t i = 0; i < count; ++i) data[i] = random_value(r, i);
    buffer.allreduce(data.data());
    double worst = 0;
    for (uint64_t i = 0; i < count; ++i) {
      double sum = 0, magnitude = 0;
      for (int k = 0; k < p; ++k) {
        sum += random_value(k, i);
        magnitude += std::fabs(random_value(k, i));
      }
      // p - 1 additions and one division, each within half an ulp.
      worst = std::max(worst, std::fabs(data[i] - sum / p) / (magnitude / p * 0x1p-24 * (p + 1)));
    }
    CHECK(worst <= 1.0);
    CHECK(same_on_all_ranks(data));
  }
}

TEST_CASE("ring reports the bytes a ring moves", "[comm][dense]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size();
  const uint64_t count = 1200;  // divisible by 2, 3 and 4
  dlk::comm::Buffer buffer(comm, count, config_of(DLK_COMM_ALGO_RING));
  std::vector<float> data(count, 1.0f);
  const dlk_comm_report report = buffer.allreduce(data.data());
  CHECK(report.wire_bytes_sent == 4 * count * 2 * (p - 1) / p);
  CHECK(report.wire_bytes_received == report.wire_bytes_sent);
  CHECK(report.total_seconds >= report.network_seconds);
}

namespace {

// libnbc's iallreduce algorithm as MPI_T reads it; false where this MPI has no
// such variable (not Open MPI).
bool libnbc_algorithm(int *value, const int *set = nullptr) {
  int provided = 0, index = 0, count = 0;
  if (MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) return false;
  MPI_T_cvar_handle handle{};
  const bool ok = MPI_T_cvar_get_index("coll_libnbc_iallreduce_algorithm", &index) == MPI_SUCCESS &&
                  MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) == MPI_SUCCESS;
  if (ok) {
    if (set) MPI_T_cvar_write(handle, set);
    MPI_T_cvar_read(handle, value);
    MPI_T_cvar_handle_free(&handle);
  }
  MPI_T_finalize();
  return ok;
}

}  // namespace

// native's iallreduce asks libnbc for its ring for its own call only, and only
// when nobody chose an algorithm: the variable reads as the caller left it.
TEST_CASE("native iallreduce: the exact sum on every rank, libnbc's choice left as it was",
          "[comm][dense][iallreduce]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  int before = -1;
  const bool open_mpi = libnbc_algorithm(&before);
  const int binomial = 2;
  for (const bool user_chose : {false, true}) {
    int chosen = before;
    if (open_mpi && user_chose) libnbc_algorithm(&chosen, &binomial);
    for (const uint64_t count : kCounts) {
      CAPTURE(user_chose, count);
      dlk::comm::Buffer buffer(comm, count, config_of(DLK_COMM_ALGO_NATIVE));
      std::vector<float> data = integer_data(r, count);
      buffer.iallreduce(data.data()).wait();
      CHECK(exact_integer_sums(data, p));
      CHECK(same_on_all_ranks(data));
      int after = -1;
      if (open_mpi) {
        libnbc_algorithm(&after);
        CHECK(after == chosen);
      }
    }
  }
  if (open_mpi) libnbc_algorithm(&before, &before);
}
