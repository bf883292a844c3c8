// The GEMM cases of the conformance suite: fixed awkward ones and seeded random
// ones, for one pair of input types and every output type dlk.h allows with it.
#pragma once

#include <string>
#include <vector>

#include "dlk/dlk.h"
#include "tests/conformance/host_tensor.hpp"
#include "tests/conformance/rng.hpp"

namespace dlk::conformance {

struct GemmProblem {
  dlk_gemm_desc desc{};  // desc.scales is set from `scales` when the case runs
  std::vector<float> scales;
  Fill fill = Fill::uniform;
  int64_t misalign = 0;  // elements every buffer starts past a 64-byte boundary

  std::string describe() const;
};

std::vector<GemmProblem> gemm_problems(dlk_dtype a_type, dlk_dtype b_type, Rng &rng,
                                       int random_count);

struct GemmTensors {
  HostTensor a, b, c;
};

// A, B and C filled for the problem: values representable in their types, NaN
// in the gaps of A and B (never to be read), NaN in C when beta is 0.
GemmTensors make_gemm_tensors(const GemmProblem &p, Rng &rng);

}  // namespace dlk::conformance
