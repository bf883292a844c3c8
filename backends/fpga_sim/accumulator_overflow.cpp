#include "backends/fpga_sim/accumulator_overflow.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "backends/fpga_sim/conv_lowering.hpp"

namespace dlk::fpga_sim {
namespace {

int64_t integer_at(const void *base, dlk_dtype type, int64_t at) {
  return type == DLK_DTYPE_U8 ? int64_t{static_cast<const uint8_t *>(base)[at]}
                              : int64_t{static_cast<const int8_t *>(base)[at]};
}

int64_t element(const core::MatrixView &v, int64_t batch, int64_t i, int64_t j) {
  return integer_at(v.ptr, v.dtype, batch * v.batch_stride + i * v.rs + j * v.cs);
}

bool outside_s32(int64_t sum) {
  return sum < std::numeric_limits<int32_t>::min() || sum > std::numeric_limits<int32_t>::max();
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
        if (outside_s32(sum)) ++count;
      }
  return count;
}

int64_t count_accumulator_overflows(const core::Conv2dArgs &a) {
  const ConvGeometry s(a);
  const int32_t zp = a.desc.src_zero_point;
  if (!accumulator_may_overflow(a.desc.src_type, zp, s.taps())) return 0;
  int64_t count = 0;
  for (int64_t i = 0; i < s.n; ++i)
    for (int64_t g = 0; g < s.groups; ++g)
      for (int64_t kk = 0; kk < s.kg; ++kk)
        for (int64_t oy = 0; oy < s.oh; ++oy)
          for (int64_t ox = 0; ox < s.ow; ++ox) {
            int64_t sum = 0;
            for (int64_t r = 0; r < s.kh; ++r) {
              const int64_t y = oy * s.stride_h - s.pad_h + r * s.dilation_h;
              if (y < 0 || y >= s.h) continue;
              for (int64_t q = 0; q < s.kw; ++q) {
                const int64_t x = ox * s.stride_w - s.pad_w + q * s.dilation_w;
                if (x < 0 || x >= s.w) continue;
                for (int64_t ci = 0; ci < s.cg; ++ci)
                  sum += (integer_at(a.src, a.desc.src_type, s.src_index(i, g, ci, y * s.w + x)) - zp) *
                         integer_at(a.weights, DLK_DTYPE_S8, (g * s.kg + kk) * s.taps() + s.tap(ci, r, q));
              }
            }
            if (outside_s32(sum)) ++count;
          }
  return count;
}

}  // namespace dlk::fpga_sim
