// onebit, int8, int4, fp16, bf16 (two-phase) and topk: the same bits on every
// rank, within each codec's bound, error feedback that makes the time average
// exact and SGD converge, and the rule for non-finite gradients.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "tests/comm/mpi_support.hpp"

using namespace dlk_test;

namespace {

const dlk_comm_algorithm kCompressed[] = {DLK_COMM_ALGO_ONEBIT, DLK_COMM_ALGO_INT8,
                                          DLK_COMM_ALGO_INT4,   DLK_COMM_ALGO_FP16,
                                          DLK_COMM_ALGO_BF16,   DLK_COMM_ALGO_TOPK};

double exact_sum(int p, uint64_t i) {
  double s = 0;
  for (int k = 0; k < p; ++k) s += random_value(k, i);
  return s;
}

// Largest error of one encode of values in [-m, m]: half a quantization step.
double encode_error(dlk_comm_algorithm algorithm, double m) {
  switch (algorithm) {
    case DLK_COMM_ALGO_INT8: return m * 0.5 / 127;
    case DLK_COMM_ALGO_INT4: return m * 0.5 / 7;
    case DLK_COMM_ALGO_FP16: return m * 0x1p-11;
    case DLK_COMM_ALGO_BF16: return m * 0x1p-8;
    default: return 0;
  }
}

}  // namespace

TEST_CASE("compressed all-reduce: identical on every rank, for awkward sizes", "[comm][compressed]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const int r = comm.size() > 0 ? comm.rank() : 0;
  for (const dlk_comm_algorithm algorithm : kCompressed)
    for (const uint64_t count : {uint64_t(0), uint64_t(1), uint64_t(3), uint64_t(17),
                                 uint64_t(1031), uint64_t(40009)}) {
      CAPTURE(dlk_comm_algorithm_name(algorithm), count);
      dlk::comm::Buffer buffer(comm, count, config_of(algorithm));
      std::vector<float> data(count);
      for (uint64_t i = 0; i < count; ++i) data[i] = random_value(r, i);
      const dlk_comm_report report = buffer.allreduce(data.data());
      CHECK(report.algorithm == algorithm);
      CHECK(same_on_all_ranks(data));
      if (count >= 1031 && comm.size() > 1)
        CHECK(report.wire_bytes_sent < 4 * count * 2);  // less than a dense ring moves
    }
}

TEST_CASE("quantizing all-reduce stays within the codec's bound", "[comm][compressed]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  const uint64_t count = 20011;
  for (const dlk_comm_algorithm algorithm :
       {DLK_COMM_ALGO_INT8, DLK_COMM_ALGO_INT4, DLK_COMM_ALGO_FP16, DLK_COMM_ALGO_BF16}) {
    CAPTURE(dlk_comm_algorithm_name(algorithm));
    dlk::comm::Buffer buffer(comm, count, config_of(algorithm));
    std::vector<float> data(count);
    for (uint64_t i = 0; i < count; ++i) data[i] = random_value(r, i);
    buffer.allreduce(data.data());
    // p worker encodes of values in [-1, 1], one server encode of the sum (in [-p, p]).
    const double bound = p * encode_error(algorithm, 1.0) + encode_error(algorithm, p) + 1e-5 * p;
    double worst = 0;
    for (uint64_t i = 0; i < count; ++i) worst = std::max(worst, std::fabs(data[i] - exact_sum(p, i)));
    CHECK(worst <= bound);
  }
}

TEST_CASE("error feedback: the average over steps converges to the exact sum", "[comm][compressed]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  const uint64_t count = 4099;
  const int steps = 32;
  for (const dlk_comm_algorithm algorithm : kCompressed) {
    CAPTURE(dlk_comm_algorithm_name(algorithm));
    dlk_comm_config c = config_of(algorithm);
    c.topk_fraction = 0.25;  // every element goes out every few steps
    dlk::comm::Buffer buffer(comm, count, c);
    std::vector<double> mean(count, 0.0);
    double first_error = 0;
    for (int s = 0; s < steps; ++s) {
      std::vector<float> data(count);
      for (uint64_t i = 0; i < count; ++i) data[i] = random_value(r, i);
      buffer.allreduce(data.data());
      for (uint64_t i = 0; i < count; ++i) {
        mean[i] += data[i] / steps;
        if (s == 0) first_error += std::fabs(data[i] - exact_sum(p, i));
      }
    }
    double mean_error = 0;
    for (uint64_t i = 0; i < count; ++i) mean_error += std::fabs(mean[i] - exact_sum(p, i));
    CHECK(mean_error <= first_error / 4);
  }
}

TEST_CASE("error feedback makes SGD on a quadratic converge as plain SGD does", "[comm][compressed]") {
  // f(x) = sum over ranks of |x - b_rank|^2 / 2p: the minimum is the mean of the b.
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  const uint64_t n = 1000;
  std::vector<double> optimum(n, 0.0);
  for (uint64_t i = 0; i < n; ++i)
    for (int k = 0; k < p; ++k) optimum[i] += random_value(k, i, 7) / p;
  // The distance of the average iterate of the last half of the run (the
  // compressed runs oscillate around the optimum by about the residual).
  auto distance_after_sgd = [&](dlk_comm_algorithm algorithm) {
    dlk_comm_config c = config_of(algorithm, true);
    c.topk_fraction = 0.1;
    dlk::comm::Buffer buffer(comm, n, c);
    const int steps = 300;
    std::vector<float> x(n, 0.0f), g(n);
    std::vector<double> average(n, 0.0);
    for (int step = 0; step < steps; ++step) {
      for (uint64_t i = 0; i < n; ++i) g[i] = x[i] - random_value(r, i, 7);
      buffer.allreduce(g.data());
      for (uint64_t i = 0; i < n; ++i) x[i] -= 0.1f * g[i];
      if (step >= steps / 2)
        for (uint64_t i = 0; i < n; ++i) average[i] += x[i] / (steps / 2);
    }
    double d = 0, o = 0;
    for (uint64_t i = 0; i < n; ++i) {
      d += (average[i] - optimum[i]) * (average[i] - optimum[i]);
      o += optimum[i] * optimum[i];
    }
    return std::sqrt(d / o);
  };
  CHECK(distance_after_sgd(DLK_COMM_ALGO_NATIVE) < 1e-3);
  for (const dlk_comm_algorithm algorithm : kCompressed) {
    CAPTURE(dlk_comm_algorithm_name(algorithm));
    const double d = distance_after_sgd(algorithm);
    INFO("distance " << d);
    CHECK(d < 0.02);
  }
}

TEST_CASE("non-finite gradients reach the result as non-finite, residuals can be reset",
          "[comm][compressed][nonfinite]") {
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const int r = comm.rank();
  const uint64_t count = 4000, plus = 5, minus = 1500, nan = 3000;
  const float inf = std::numeric_limits<float>::infinity();
  const dlk_comm_algorithm all[] = {DLK_COMM_ALGO_NATIVE, DLK_COMM_ALGO_RING, DLK_COMM_ALGO_PS,
                                    DLK_COMM_ALGO_ONEBIT, DLK_COMM_ALGO_INT8, DLK_COMM_ALGO_INT4,
                                    DLK_COMM_ALGO_FP16,   DLK_COMM_ALGO_BF16, DLK_COMM_ALGO_TOPK};
  for (const dlk_comm_algorithm algorithm : all) {
    CAPTURE(dlk_comm_algorithm_name(algorithm));
    dlk::comm::Buffer buffer(comm, count, config_of(algorithm));
    // Large finite values (a block mean of them once overflowed), except where
    // the format cannot hold them.
    const float scale = algorithm == DLK_COMM_ALGO_FP16 ? 1.0f : 4e35f;
    std::vector<float> data(count);
    for (uint64_t i = 0; i < count; ++i) data[i] = random_value(r, i) * scale;
    if (r == 0) {
      data[plus] = inf;
      data[minus] = -inf;
      data[nan] = std::numeric_limits<float>::quiet_NaN();
    }
    buffer.allreduce(data.data());
    CHECK(!std::isfinite(data[plus]));
    CHECK(!(data[plus] < 0));  // +inf or NaN, never -inf
    CHECK(!std::isfinite(data[minus]));
    CHECK(!(data[minus] > 0));
    CHECK(!std::isfinite(data[nan]));

    buffer.reset_residuals();
    for (uint64_t i = 0; i < count; ++i) data[i] = random_value(r, i) * scale;
    buffer.allreduce(data.data());
    bool finite = true;
    for (const float v : data) finite = finite && std::isfinite(v);
    CHECK(finite);
  }
}

TEST_CASE("error feedback: the running mean of one gradient reduced T times converges as 1/T",
          "[comm][compressed][error_feedback]") {
  // A gradient as a network makes it: layers whose scales differ by 1000x, side
  // by side in one buffer (so in one codec block), and a run of exact zeros (a
  // dead unit). With residuals that stay bounded, T calls sum to T times the
  // exact result minus the last residuals, so the running mean's error falls as
  // 1/T; a residual that grows (onebit with block means grew as sqrt(T)) makes
  // it fall as 1/sqrt(T) and training stalls.
  dlk::comm::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  const uint64_t count = 6007;
  const float scales[] = {1e-1f, 3e-4f, 1e-2f, 0.0f, 1e-3f, 3e-2f};
  auto gradient = [&](int rank) {
    std::vector<float> g(count);
    for (uint64_t i = 0; i < count; ++i) g[i] = random_value(rank, i, 3) * scales[i * 6 / count];
    return g;
  };
  const std::vector<float> mine = gradient(r);
  for (const bool average : {false, true})
    for (const dlk_comm_algorithm algorithm :
         {DLK_COMM_ALGO_ONEBIT, DLK_COMM_ALGO_TOPK, DLK_COMM_ALGO_INT8, DLK_COMM_ALGO_INT4}) {
      CAPTURE(dlk_comm_algorithm_name(algorithm), average);
      std::vector<double> exact(count, 0.0);
      for (int k = 0; k < p; ++k) {
        const std::vector<float> g = gradient(k);
        for (uint64_t i = 0; i < count; ++i) exact[i] += g[i] / (average ? p : 1);
      }
      double norm = 0;
      for (const double e : exact) norm += e * e;
      norm = std::sqrt(norm);
      dlk_comm_config c = config_of(algorithm, average);
      c.topk_fraction = 0.25;
      dlk::comm::Buffer buffer(comm, count, c);
      std::vector<double> sum(count, 0.0);
      auto error_of_mean = [&](int calls) {
        double e = 0;
        for (uint64_t i = 0; i < count; ++i) {
          const double d = sum[i] / calls - exact[i];
          e += d * d;
        }
        return std::sqrt(e) / norm;
      };
      const int short_run = 16, long_run = 128;
      double at_short = 0;
      for (int t = 1; t <= long_run; ++t) {
        std::vector<float> data = mine;
        buffer.allreduce(data.data());
        for (uint64_t i = 0; i < count; ++i) sum[i] += data[i];
        if (t == short_run) at_short = error_of_mean(t);
      }
      const double at_long = error_of_mean(long_run);
      INFO("relative error of the mean after " << short_run << " calls " << at_short << ", after "
                                               << long_run << " " << at_long);
      // 1/T gives 1/8 from 16 to 128 calls; 1/sqrt(T) would give 1/2.8.
      CHECK(at_long <= at_short / 5);
      CHECK(at_long < 0.05);
    }
}
