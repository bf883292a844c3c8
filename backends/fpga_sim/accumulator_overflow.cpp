#include "backends/fpga_sim/accumulator_overflow.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace dlk::fpga_sim {
namespace {

int64_t element(const core::MatrixView &v, int64_t batch, int64_t i, int64_t j) {
  const int64_t at = batch * v.batch_stride + i * v.rs + j * v.cs;
  return v.dtype == DLK_DTYPE_U8 ? int64_t{static_cast<const uint8_t *>(v.ptr)[at]}
                                 : int64_t{static_cast<const int8_t *>(v.ptr)[at]};
}

}  // namespace

bool accumulator_may_overflow(dlk_dtype a_type, int32_t a_zero_point, int64_t k) {
  const int64_t lo = a_type == DLK_DTYPE_U8 ? 0 : -128, hi = a_type == DLK_DTYPE_U8 ? 255 : 127;
  const int64_t a_max = std::max(std::llabs(lo - a_zero_point), std::llabs(hi - a_zero_point));
  // k * a_max * 128 against 2^31 - 1, without overflowing int64 on the way.
  const int64_t per_product = a_max * 128;
  return per_product != 0 && k > std::numeric_limits<int32_t>::max() / per_product;
}

int64_t count_accumulator_overflows(const core::GemmArgs &g) {
  if (!accumulator_may_overflow(g.a.dtype, g.a_zero_point, g.k)) return 0;
  int64_t count = 0;
  for (int64_t batch = 0; batch < g.batch; ++batch)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        int64_t sum = 0;
        for (int64_t p = 0; p < g.k; ++p)
          sum += (element(g.a, batch, i, p) - g.a_zero_point) * element(g.b, batch, p, j);
        if (sum < std::numeric_limits<int32_t>::min() || sum > std::numeric_limits<int32_t>::max())
          ++count;
      }
  return count;
}

}  // namespace dlk::fpga_sim
