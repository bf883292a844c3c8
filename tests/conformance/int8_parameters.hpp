// Zero points and scales for the int8 cases of GEMM and convolution.
#pragma once

#include <cstdint>

#include "dlk/dlk.h"
#include "tests/conformance/host_tensor.hpp"
#include "tests/conformance/rng.hpp"

namespace dlk::conformance {

// A zero point anywhere in the type's range, 0 a quarter of the time.
int32_t random_zero_point(Rng &rng, dlk_dtype dtype);

// A multiplier that maps the sum of `terms` int8 products of data drawn with
// `fill` to about +-48, so that requantized results mostly fall inside the s8/u8
// range while some saturate. Half the time a power of two: then exact ties
// (x.5) occur and round half to even is exercised.
float random_multiplier(Rng &rng, int64_t terms, Fill fill);

}  // namespace dlk::conformance
