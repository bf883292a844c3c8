// oneDNN's matmul as the CPU peer of dlk's GEMM for every dtype the two share
// (f32; bf16 in with f32 out; u8 x s8 -> s32), row-major, no transposes. Two
// forms: B plain (row-major, as the caller has it, the same input dlk gets) and
// B in the layout oneDNN's matmul picks for itself (format_tag::any), reordered
// once up front and not timed, as a framework does with its weights.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "dlk/dlk.h"

namespace dlk::perf {

class OneDnnMatmul {
 public:
  // a_type / b_type / c_type: f32 f32 f32, bf16 bf16 f32 or u8 s8 s32. The
  // operands are the caller's row-major host arrays (m x k, k x n, m x n), which
  // must outlive the object. Throws std::runtime_error for another combination
  // or when oneDNN fails.
  OneDnnMatmul(std::int64_t m, std::int64_t n, std::int64_t k, dlk_dtype a_type,
               dlk_dtype b_type, dlk_dtype c_type, const void *a, const void *b, void *c,
               bool packed_b, int threads);
  ~OneDnnMatmul();
  OneDnnMatmul(const OneDnnMatmul &) = delete;
  OneDnnMatmul &operator=(const OneDnnMatmul &) = delete;

  // One complete call on `threads` OpenMP threads (oneDNN uses the caller's
  // OpenMP team size).
  void run(int threads) const;
  // The implementation oneDNN chose, e.g. "brg:avx512_core".
  std::string implementation() const;

  // oneDNN's version as "major.minor.patch".
  static std::string version();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace dlk::perf
