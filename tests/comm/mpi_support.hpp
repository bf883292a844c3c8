// Helpers of the MPI tests: per-rank test data and cross-rank checks.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <mpi.h>

#include "dlk/dlk_comm.hpp"

namespace dlk_test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

inline uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Small integers: every sum order gives the exact sum.
inline float integer_value(int rank, uint64_t i) {
  return static_cast<float>(static_cast<int>(mix(i * 131 + static_cast<uint64_t>(rank)) % 33) - 16);
}

// Uniform in [-1, 1).
inline float random_value(int rank, uint64_t i, uint64_t seed = 0) {
  return static_cast<float>(mix(i ^ (uint64_t(rank) << 40) ^ (seed << 52)) >> 40) * 0x1p-23f -
         1.0f;
}

// True on every rank when every rank holds the same bits.
inline bool same_on_all_ranks(const std::vector<float> &v) {
  uint64_t h = 1469598103934665603ull;
  for (float f : v) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    h = (h ^ b) * 1099511628211ull;
  }
  uint64_t range[2] = {h, ~h};
  MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return range[0] == ~range[1];
}

// True on every rank when `ok` holds on every rank.
inline bool on_all_ranks(bool ok) {
  int v = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return v == 1;
}

inline dlk_comm_config config_of(dlk_comm_algorithm algorithm, bool average = false) {
  dlk_comm_config c = dlk::comm::config(algorithm);
  c.average = average ? 1 : 0;
  return c;
}

}  // namespace dlk_test
