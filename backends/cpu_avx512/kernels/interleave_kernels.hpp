// Two rows merged column by column (kernels/interleave_avx512.cpp): backward
// data in phases (conv2d_backward_data_wide_rows_phases.cpp) computes a row
// of diff_src's even columns and one of its odd columns apart.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dlk::cpu::kernels {

// row[2 j] = even[j], row[2 j + 1] = odd[j] for the `width` columns of row;
// elements of `elem` bytes (2 or 4). AVX-512 F, BW and VL (the AVX-512 tier).
void interleave_columns_avx512(const void *even, const void *odd, int64_t width, size_t elem,
                               void *row);

}  // namespace dlk::cpu::kernels
