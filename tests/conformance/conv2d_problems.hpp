// The conv2d cases of the conformance suite: fixed awkward geometries (1x1,
// strides past the kernel, dilation, groups and depthwise, kernels as large as
// the image, empty batches) in both formats, and seeded random ones.
#pragma once

#include <string>
#include <vector>

#include "dlk/dlk.h"
#include "tests/conformance/host_tensor.hpp"
#include "tests/conformance/rng.hpp"

namespace dlk::conformance {

struct ConvProblem {
  dlk_op op = DLK_OP_CONV2D_FORWARD;
  dlk_conv2d_desc desc{};  // desc.scales is set from `scales` when the case runs
  std::vector<float> scales;
  bool bias = false;  // forward: with a bias; backward weights: diff_bias asked for
  Fill fill = Fill::uniform;

  std::string describe() const;
};

// (src, dst) types of a suite; weights are src's type, or s8 for int8 src.
struct ConvTypes {
  dlk_dtype src, dst;
};

std::vector<ConvProblem> conv2d_problems(dlk_op op, const std::vector<ConvTypes> &types, Rng &rng,
                                         int random_count);

// The tensors the op takes: inputs filled for the problem, outputs as they are
// before the call (NaN or garbage: every element must be overwritten).
struct ConvTensors {
  HostTensor src, weights, diff_dst;
  std::vector<float> bias;  // forward; empty for none
  HostTensor bias_tensor;   // the same values, to upload
  HostTensor dst, diff_src, diff_weights, diff_bias;
};

ConvTensors make_conv_tensors(const ConvProblem &p, Rng &rng);

}  // namespace dlk::conformance
