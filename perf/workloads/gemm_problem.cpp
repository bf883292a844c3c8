#include "perf/workloads/gemm_problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "perf/common/random_elements.hpp"

namespace dlk::perf {
namespace {

size_t count(std::int64_t rows, std::int64_t cols) {
  return static_cast<size_t>(rows) * static_cast<size_t>(cols);
}

double element(const std::vector<unsigned char> &c, dlk_dtype type, size_t i) {
  if (type == DLK_DTYPE_S32) {
    int32_t v;
    std::memcpy(&v, &c[i * 4], 4);
    return v;
  }
  float v;
  std::memcpy(&v, &c[i * 4], 4);
  return v;
}

}  // namespace

const char *gemm_dtype_name(GemmDtype d) {
  switch (d) {
    case GemmDtype::bf16: return "bf16";
    case GemmDtype::int8: return "int8";
    case GemmDtype::f32: break;
  }
  return "f32";
}

GemmDtype gemm_dtype_from_name(const std::string &name) {
  for (GemmDtype d : {GemmDtype::f32, GemmDtype::bf16, GemmDtype::int8})
    if (name == gemm_dtype_name(d)) return d;
  throw std::invalid_argument("unknown GEMM dtype '" + name + "'; valid: f32, bf16, int8");
}

GemmProblem::GemmProblem(dlk::Context &context, GemmDtype dtype, std::int64_t m, std::int64_t n,
                         std::int64_t k)
    : context_(context), dtype_(dtype), m_(m), n_(n), k_(k) {
  switch (dtype) {
    case GemmDtype::f32: a_type_ = b_type_ = c_type_ = DLK_DTYPE_F32; break;
    case GemmDtype::bf16: a_type_ = b_type_ = DLK_DTYPE_BF16, c_type_ = DLK_DTYPE_F32; break;
    case GemmDtype::int8: a_type_ = DLK_DTYPE_U8, b_type_ = DLK_DTYPE_S8, c_type_ = DLK_DTYPE_S32; break;
  }
  a_ = random_elements(a_type_, count(m, k), 1);
  b_ = random_elements(b_type_, count(k, n), 2);
  c_peer_.assign(count(m, n) * dlk_dtype_size(c_type_), 0);
  a_dev_ = dlk::Buffer<unsigned char>(context, a_.size());
  b_dev_ = dlk::Buffer<unsigned char>(context, b_.size());
  c_dev_ = dlk::Buffer<unsigned char>(context, c_peer_.size());
  a_dev_.upload(a_.data());
  b_dev_.upload(b_.data());
}

GemmProblem::~GemmProblem() = default;

Candidate GemmProblem::dlk_candidate() {
  const dlk_gemm_desc desc = dlk::gemm_desc(a_type_, b_type_, c_type_, m_, n_, k_);
  return {"dlk", [this, desc] {
            context_.gemm(desc, a_dev_.get(), b_dev_.get(), c_dev_.get());
            context_.synchronize();
          }};
}

Candidate GemmProblem::openblas_candidate(const OpenBlasPeer &peer) {
  if (dtype_ != GemmDtype::f32) throw std::logic_error("OpenBLAS peer: f32 only");
  return {"openblas", [this, &peer] {
            const int m = static_cast<int>(m_), n = static_cast<int>(n_), k = static_cast<int>(k_);
            peer.sgemm(m, n, k, 1.0f, reinterpret_cast<const float *>(a_.data()), k,
                       reinterpret_cast<const float *>(b_.data()), n, 0.0f,
                       reinterpret_cast<float *>(c_peer_.data()), n);
          }};
}

Candidate GemmProblem::onednn_candidate(bool packed_b, int threads) {
  onednn_.push_back(std::make_unique<OneDnnMatmul>(m_, n_, k_, a_type_, b_type_, c_type_,
                                                   a_.data(), b_.data(), c_peer_.data(), packed_b, threads));
  const OneDnnMatmul *matmul = onednn_.back().get();
  return {packed_b ? "onednn_packed" : "onednn", [matmul, threads] { matmul->run(threads); }};
}

std::string GemmProblem::onednn_implementation() const {
  return onednn_.empty() ? std::string() : onednn_.back()->implementation();
}

double GemmProblem::max_relative_difference() const {
  std::vector<unsigned char> c_dlk(c_peer_.size());
  c_dev_.download(c_dlk.data());
  double max_diff = 0, max_ref = 0;
  for (size_t i = 0; i < count(m_, n_); ++i) {
    const double ref = element(c_peer_, c_type_, i);
    max_diff = std::max(max_diff, std::fabs(element(c_dlk, c_type_, i) - ref));
    max_ref = std::max(max_ref, std::fabs(ref));
  }
  return max_ref > 0 ? max_diff / max_ref : max_diff;
}

}  // namespace dlk::perf
