// Double-precision reference of dlk_pool2d_{forward,backward}, written from the
// rules in dlk.h and sharing no code with any backend.
#pragma once

#include <cstdint>

#include "dlk/dlk.h"
#include "tests/conformance/expected.hpp"
#include "tests/conformance/host_tensor.hpp"

namespace dlk::conformance {

struct PoolGeometry {
  int64_t oh = 0, ow = 0;
  explicit PoolGeometry(const dlk_pool2d_desc &d);
  int64_t src_elements(const dlk_pool2d_desc &d) const { return d.n * d.c * d.h * d.w; }
  int64_t dst_elements(const dlk_pool2d_desc &d) const { return d.n * d.c * oh * ow; }
};

struct PoolForward {
  Expected dst;
  Expected argmax;     // max pooling only: exact
  HostTensor indices;  // the same argmax as s32 values, to feed the backward pass
};

PoolForward reference_pool2d_forward(const dlk_pool2d_desc &d, const HostTensor &src);
// diff_src; argmax (s32, one per dst element) is used by max pooling only.
Expected reference_pool2d_backward(const dlk_pool2d_desc &d, const HostTensor &diff_dst,
                                   const HostTensor &argmax);

}  // namespace dlk::conformance
