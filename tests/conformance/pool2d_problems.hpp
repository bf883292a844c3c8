// The pool2d cases of the conformance suite: max (with and without argmax, on
// data full of ties), average counting padding or not, fixed awkward windows in
// both formats, and seeded random ones.
#pragma once

#include <string>
#include <vector>

#include "dlk/dlk.h"
#include "tests/conformance/host_tensor.hpp"
#include "tests/conformance/rng.hpp"

namespace dlk::conformance {

struct PoolProblem {
  dlk_op op = DLK_OP_POOL2D_FORWARD;
  dlk_pool2d_desc desc{};
  bool argmax = true;  // forward max pooling: ask for the argmax
  Fill fill = Fill::uniform;
  bool nans = false;  // float max forward: about one src element in eight is NaN

  std::string describe() const;
};

std::vector<PoolProblem> pool2d_problems(dlk_op op, dlk_dtype dtype, Rng &rng, int random_count);

struct PoolTensors {
  HostTensor src;       // forward input; for max backward, what the argmax comes from
  HostTensor diff_dst;  // backward input
  HostTensor dst, argmax, diff_src;  // outputs before the call: NaN or garbage
};

PoolTensors make_pool_tensors(const PoolProblem &p, Rng &rng);

}  // namespace dlk::conformance
