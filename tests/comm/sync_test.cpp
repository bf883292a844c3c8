// The synchronizer: buckets, the sums copied back, overlap with the caller's
// work, and a layout mismatch.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "tests/comm/mpi_support.hpp"

using namespace dlk_test;

TEST_CASE("synchronizer all-reduces every gradient, bucket by bucket", "[comm][sync]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  const uint64_t sizes[] = {1000, 1, 3000, 257, 2048, 0, 5000, 13};
  std::vector<std::vector<float>> grads;
  for (const uint64_t n : sizes) grads.emplace_back(n);
  dlk::comm::Synchronizer sync(comm, config_of(DLK_COMM_ALGO_RING), 16 << 10);  // 4096 floats
  for (auto &g : grads) sync.add(g.data(), g.size());
  sync.commit();
  CHECK(sync.bucket_count() == 4);  // {1000, 1, 3000}, {257, 2048, 0}, {5000}, {13}

  for (int step = 0; step < 2; ++step) {
    for (size_t k = 0; k < grads.size(); ++k)
      for (uint64_t i = 0; i < grads[k].size(); ++i) grads[k][i] = integer_value(r, 100 * k + i);
    for (uint32_t k = 0; k < grads.size(); ++k) {
      sync.ready(k);
      // The first bucket is complete after gradient 2: "backward" goes on.
      if (k == 2) std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
    std::vector<dlk_comm_report> buckets;
    const dlk_comm_sync_report report = sync.wait(&buckets);
    bool exact = true;
    for (size_t k = 0; k < grads.size(); ++k)
      for (uint64_t i = 0; i < grads[k].size(); ++i) {
        float sum = 0;
        for (int q = 0; q < p; ++q) sum += integer_value(q, 100 * k + i);
        exact = exact && grads[k][i] == sum;
      }
    CHECK(exact);
    CHECK(report.buckets == buckets.size());
    CHECK(report.logical_bytes == 4 * (1000 + 1 + 3000 + 257 + 2048 + 0 + 5000 + 13));
    CHECK(report.communication_seconds > 0);
    if (comm.properties().background) CHECK(report.overlapped_seconds > 0);
    else CHECK(report.overlapped_seconds == 0);
  }
}

TEST_CASE("synchronizer buckets are waited for one by one; one gradient is reduced in place",
          "[comm][sync]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  const uint64_t sizes[] = {1000, 1, 3000, 5000, 13};
  std::vector<std::vector<float>> grads;
  for (const uint64_t n : sizes) grads.emplace_back(n);
  dlk::comm::Synchronizer sync(comm, config_of(DLK_COMM_ALGO_RING), 16 << 10);  // 4096 floats
  for (auto &g : grads) sync.add(g.data(), g.size());
  CHECK_THROWS_WITH(sync.gradient_bucket(0), Catch::Contains("not committed"));
  sync.commit();
  REQUIRE(sync.bucket_count() == 3);  // {1000, 1, 3000}, {5000}, {13}
  const uint32_t expected[] = {0, 0, 0, 1, 2};
  for (uint32_t i = 0; i < 5; ++i) CHECK(sync.gradient_bucket(i) == expected[i]);
  CHECK_THROWS_WITH(sync.gradient_bucket(5), Catch::Contains("5 gradients are registered"));
  const auto exact = [&](size_t k) {
    for (uint64_t i = 0; i < grads[k].size(); ++i) {
      float sum = 0;
      for (int q = 0; q < p; ++q) sum += integer_value(q, 100 * k + i);
      if (grads[k][i] != sum) return false;
    }
    return true;
  };
  for (int step = 0; step < 2; ++step) {
    for (size_t k = 0; k < grads.size(); ++k)
      for (uint64_t i = 0; i < grads[k].size(); ++i) grads[k][i] = integer_value(r, 100 * k + i);
    sync.ready(0);
    sync.ready(1);
    // Bucket 1 cannot start before gradient 3 is ready: waiting for it is refused.
    CHECK_THROWS_WITH(sync.wait_bucket(1), Catch::Contains("has not started"));
    sync.ready(2);
    sync.wait_bucket(0);
    CHECK((exact(0) && exact(1) && exact(2)));
    sync.ready(3);
    sync.wait_bucket(1);
    CHECK(exact(3));  // a bucket of one gradient: all-reduced where it lies
    sync.ready(4);
    sync.wait_bucket(2);
    sync.wait_bucket(2);  // again: it stays ended until the step's wait
    CHECK(exact(4));
    sync.wait();
  }
  CHECK_THROWS_WITH(sync.wait_bucket(3), Catch::Contains("has 3 buckets"));
}

TEST_CASE("synchronizer layouts that differ between ranks are a mismatch", "[comm][sync][mismatch]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  std::vector<float> a(100), b(comm.rank() == 0 ? 50 : 60);
  dlk::comm::Synchronizer sync(comm, config_of(DLK_COMM_ALGO_NATIVE));
  sync.add(a.data(), a.size());
  sync.add(b.data(), b.size());
  try {
    sync.commit();
    FAIL("commit succeeded");
  } catch (const dlk::comm::Error &e) {
    CHECK(e.status() == DLK_COMM_MISMATCH);
  }
}

TEST_CASE("iallreduce: several in flight, test and wait", "[comm][iallreduce]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  std::vector<std::vector<float>> data(3, std::vector<float>(10007));
  std::vector<dlk::comm::Buffer> buffers;
  std::vector<dlk::comm::Request> requests;
  const dlk_comm_algorithm algorithms[] = {DLK_COMM_ALGO_RING, DLK_COMM_ALGO_NATIVE,
                                           DLK_COMM_ALGO_PS};
  for (size_t k = 0; k < 3; ++k) {
    for (uint64_t i = 0; i < data[k].size(); ++i) data[k][i] = integer_value(r, i + k);
    buffers.emplace_back(comm, data[k].size(), config_of(algorithms[k]));
  }
  for (size_t k = 0; k < 3; ++k) requests.push_back(buffers[k].iallreduce(data[k].data()));
  (void)requests[2].test();
  for (size_t k = 0; k < 3; ++k) {
    const dlk_comm_report report = requests[k].wait();
    CHECK(report.algorithm == algorithms[k]);
    float sum = 0;
    for (int q = 0; q < p; ++q) sum += integer_value(q, 10006 + k);
    CHECK(data[k][10006] == sum);
  }
}

TEST_CASE("synchronizer bucket states restore exactly; reset and times between steps",
          "[comm][sync][state]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const int r = comm.rank();
  std::vector<float> a(3000), b(5000), a2(3000), b2(5000);
  dlk::comm::Synchronizer first(comm, config_of(DLK_COMM_ALGO_ONEBIT), 16 << 10);
  dlk::comm::Synchronizer second(comm, config_of(DLK_COMM_ALGO_ONEBIT), 16 << 10);
  first.add(a.data(), a.size());
  first.add(b.data(), b.size());
  second.add(a2.data(), a2.size());
  second.add(b2.data(), b2.size());
  first.commit();
  second.commit();
  REQUIRE(first.bucket_count() == 2);
  const auto step = [&](dlk::comm::Synchronizer &s, std::vector<float> &x, std::vector<float> &y,
                        int k) {
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.001f * static_cast<float>((i * 7 + k + r) % 23);
    for (size_t i = 0; i < y.size(); ++i) y[i] = 0.002f * static_cast<float>((i * 5 + k + r) % 19);
    s.ready(0);
    s.ready(1);
    s.wait();
  };
  step(first, a, b, 0);
  // Mid-step, the state calls are refused.
  first.ready(0);
  CHECK_THROWS_WITH(first.save_bucket_state(0), Catch::Contains("middle of a step"));
  first.ready(1);
  first.wait();
  const auto [starts, ends] = first.bucket_times();
  CHECK(starts[0] > 0);
  CHECK(ends[1] >= starts[1]);
  CHECK_THROWS_WITH(first.save_bucket_state(2), Catch::Contains("has 2 buckets"));
  for (uint32_t k = 0; k < 2; ++k) second.load_bucket_state(k, first.save_bucket_state(k));
  step(first, a, b, 3);
  step(second, a2, b2, 3);
  CHECK(a == a2);
  CHECK(b == b2);
  // Without residuals the next result differs (the compression error is dropped).
  first.reset_residuals();
  step(first, a, b, 4);
  step(second, a2, b2, 4);
  CHECK(a != a2);
}
