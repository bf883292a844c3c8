#include "perf/gemm_f32_problem.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace dlk::perf {
namespace {

std::vector<float> random_matrix(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float &x : v) x = dist(rng);
  return v;
}

size_t count(std::int64_t rows, std::int64_t cols) {
  return static_cast<size_t>(rows) * static_cast<size_t>(cols);
}

}  // namespace

GemmF32Problem::GemmF32Problem(dlk::Context &context, std::int64_t m, std::int64_t n,
                               std::int64_t k)
    : context_(context),
      m_(m),
      n_(n),
      k_(k),
      a_(random_matrix(count(m, k), 1)),
      b_(random_matrix(count(k, n), 2)),
      c_peer_(count(m, n)),
      a_dev_(context, count(m, k)),
      b_dev_(context, count(k, n)),
      c_dev_(context, count(m, n)) {
  a_dev_.upload(a_.data());
  b_dev_.upload(b_.data());
}

Candidate GemmF32Problem::dlk_candidate() {
  const dlk_gemm_desc desc = dlk::gemm_desc(DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, m_, n_, k_);
  return {"dlk", [this, desc] {
            context_.gemm(desc, a_dev_.get(), b_dev_.get(), c_dev_.get());
            context_.synchronize();
          }};
}

Candidate GemmF32Problem::openblas_candidate(const OpenBlasPeer &peer) {
  return {"openblas", [this, &peer] {
            const int m = static_cast<int>(m_), n = static_cast<int>(n_), k = static_cast<int>(k_);
            peer.sgemm(m, n, k, 1.0f, a_.data(), k, b_.data(), n, 0.0f, c_peer_.data(), n);
          }};
}

double GemmF32Problem::max_relative_difference() const {
  std::vector<float> c_dlk(c_peer_.size());
  c_dev_.download(c_dlk.data());
  double max_diff = 0, max_ref = 0;
  for (size_t i = 0; i < c_dlk.size(); ++i) {
    max_diff = std::max(max_diff, std::fabs(static_cast<double>(c_dlk[i]) - c_peer_[i]));
    max_ref = std::max(max_ref, std::fabs(static_cast<double>(c_peer_[i])));
  }
  return max_ref > 0 ? max_diff / max_ref : max_diff;
}

}  // namespace dlk::perf
