// Edge tiles at their own size: a kernel's register loops are unrolled for
// compile-time rows R and vectors per row V, and each call runs the smallest
// instance that covers the tile. A 256-row C is 18 full 14-row micro-rows and
// one of 4: the full-size kernel multiplies 10 rows of zero padding there (4 %
// of the work; 9 % at 64 and 128 rows), a 4-row instance does not.
#pragma once

#include <type_traits>

namespace dlk::cpu::kernels {

// Calls body(std::integral_constant<int, R>, std::integral_constant<int, V>) for
// the smallest even R >= rows (R <= MR) and V = 1 when the tile's columns fit one
// vector of `lanes`, else 2 (NR = 2 x lanes). Even R only: half the instances,
// at most one padding row.
template <int MR, class Body>
__attribute__((always_inline)) inline void with_tile_shape(int rows, int cols, int lanes,
                                                           Body &&body) {
  static_assert(MR % 2 == 0, "rows are dispatched in steps of two");
  if constexpr (MR > 2) {
    if (rows <= MR - 2) return with_tile_shape<MR - 2>(rows, cols, lanes, body);
  }
  if (cols <= lanes)
    body(std::integral_constant<int, MR>{}, std::integral_constant<int, 1>{});
  else
    body(std::integral_constant<int, MR>{}, std::integral_constant<int, 2>{});
}

// Calls body(std::true_type) when `flag`, else body(std::false_type): a choice
// made once per tile (A or B read in place or packed) as a template argument,
// so that the k loop holds no branch on it.
template <class Body>
__attribute__((always_inline)) inline void with_flag(bool flag, Body &&body) {
  if (flag)
    body(std::true_type{});
  else
    body(std::false_type{});
}

}  // namespace dlk::cpu::kernels
