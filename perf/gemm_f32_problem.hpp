// One GEMM f32 problem, C = A * B (row-major, no transposes, alpha 1, beta 0),
// with the same random A and B on the dlk context and on the host for the peers.
// It offers one timing candidate per implementation, so dlk and its peers run
// interleaved on identical data, and checks afterwards that they agree.
#pragma once

#include <cstdint>
#include <vector>

#include "dlk/dlk.hpp"
#include "perf/openblas_peer.hpp"
#include "perf/timing.hpp"

namespace dlk::perf {

class GemmF32Problem {
 public:
  // m, n, k in [1, 2^31 - 1]; A and B uniform in [-1, 1] from a fixed seed. The
  // context must outlive the problem.
  GemmF32Problem(dlk::Context &context, std::int64_t m, std::int64_t n, std::int64_t k);

  // dlk_gemm then dlk_synchronize; throws dlk::Error on a failed call.
  Candidate dlk_candidate();
  // The peer must outlive the candidate.
  Candidate openblas_candidate(const OpenBlasPeer &peer);

  // max |C_dlk - C_openblas| / max |C_openblas| after both candidates ran once.
  double max_relative_difference() const;

 private:
  dlk::Context &context_;
  std::int64_t m_, n_, k_;
  std::vector<float> a_, b_, c_peer_;
  dlk::Buffer<float> a_dev_, b_dev_, c_dev_;
};

}  // namespace dlk::perf
