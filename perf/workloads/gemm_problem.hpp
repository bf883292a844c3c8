// One GEMM problem, C = A * B (row-major, no transposes, alpha 1, beta 0), in
// one of the dtypes dlk and its peers share, with the same random A and B on the
// dlk context and on the host for the peers. It offers one timing candidate per
// implementation, so dlk and its peers run interleaved on identical data, and
// checks afterwards that they agree.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dlk/dlk.hpp"
#include "perf/peers/onednn_peer.hpp"
#include "perf/peers/openblas_peer.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {

// The operand types of a problem: f32 x f32 -> f32, bf16 x bf16 -> f32,
// u8 x s8 -> s32.
enum class GemmDtype { f32, bf16, int8 };
const char *gemm_dtype_name(GemmDtype d);  // "f32", "bf16", "int8"
// Throws std::invalid_argument for any other name.
GemmDtype gemm_dtype_from_name(const std::string &name);

class GemmProblem {
 public:
  // m, n, k in [1, 2^31 - 1]; A and B uniform from a fixed seed (floats in
  // [-1, 1], u8 in [0, 255], s8 in [-128, 127]). The context must outlive the
  // problem.
  GemmProblem(dlk::Context &context, GemmDtype dtype, std::int64_t m, std::int64_t n,
              std::int64_t k);
  ~GemmProblem();

  // dlk_gemm then dlk_synchronize; throws dlk::Error on a failed call.
  Candidate dlk_candidate();
  // f32 only. The peer must outlive the candidate.
  Candidate openblas_candidate(const OpenBlasPeer &peer);
  // oneDNN matmul on `threads` threads, B plain or in oneDNN's own layout
  // (reordered now, untimed). Throws std::runtime_error when oneDNN fails.
  Candidate onednn_candidate(bool packed_b, int threads);
  // What oneDNN chose for its last candidate.
  std::string onednn_implementation() const;

  // max |C_dlk - C_peer| / max |C_peer| after dlk and a peer ran, the peer being
  // the last one whose candidate ran (or whose C went to peer_c()).
  double max_relative_difference() const;

  // For a peer on the context's device (perf/peers/cuda_peers.hpp): dlk's device
  // operands, the types, and the host buffer its C goes to for the comparison.
  const void *a_device() const { return a_dev_.get(); }
  const void *b_device() const { return b_dev_.get(); }
  dlk_dtype a_type() const { return a_type_; }
  dlk_dtype b_type() const { return b_type_; }
  dlk_dtype c_type() const { return c_type_; }
  unsigned char *peer_c() { return c_peer_.data(); }

 private:
  dlk::Context &context_;
  GemmDtype dtype_;
  std::int64_t m_, n_, k_;
  dlk_dtype a_type_, b_type_, c_type_;
  std::vector<unsigned char> a_, b_, c_peer_;
  dlk::Buffer<unsigned char> a_dev_, b_dev_, c_dev_;
  std::vector<std::unique_ptr<OneDnnMatmul>> onednn_;
};

}  // namespace dlk::perf
