#include "tests/conformance/int8_parameters.hpp"

#include <cmath>

namespace dlk::conformance {

int32_t random_zero_point(Rng &rng, dlk_dtype dtype) {
  if (rng.chance(0.25)) return 0;
  return static_cast<int32_t>(dtype == DLK_DTYPE_U8 ? rng.uniform(0, 255) : rng.uniform(-128, 127));
}

float random_multiplier(Rng &rng, int64_t terms, Fill fill) {
  // Standard deviation of one factor (uniform over 256 values: about 74).
  const double spread = fill == Fill::few_values ? 2.0 : 74.0;
  const double typical_sum = std::sqrt(static_cast<double>(terms > 0 ? terms : 1)) * spread * spread;
  const double m = 48.0 / typical_sum;
  return static_cast<float>(rng.chance(0.5) ? std::exp2(std::round(std::log2(m)))
                                            : m * (0.7 + 0.7 * rng.unit()));
}

}  // namespace dlk::conformance
