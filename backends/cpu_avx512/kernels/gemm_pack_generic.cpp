// Portable packing kernels for the scalar and AVX2 tiers (and the reference the
// AVX-512 ones are tested against): unit and byte copies in loops.
#include <cstring>

#include "backends/cpu_avx512/kernels/gemm_pack_kernels.hpp"

namespace dlk::cpu::kernels {

void pack_k_contiguous_generic(const uint8_t *src, int64_t stride, int rows, int64_t bytes,
                               int width, uint8_t flip, uint8_t *out) {
  const int64_t units = (bytes + 3) / 4;
  for (int t = 0; t < width; ++t) {
    // Rows past `rows` are padding: no address is formed for them.
    const uint8_t *row = t < rows ? src + t * stride : nullptr;
    for (int64_t u = 0; u < units; ++u) {
      uint8_t unit[4] = {0, 0, 0, 0};
      if (row)
        for (int64_t b = 4 * u; b < 4 * u + 4 && b < bytes; ++b)
          unit[b - 4 * u] = static_cast<uint8_t>(row[b] ^ flip);
      std::memcpy(out + (u * width + t) * 4, unit, 4);
    }
  }
}

void pack_panel_contiguous_generic(const uint8_t *src, int64_t stride, int elem_bytes, int64_t k,
                                   int cols, int width, int panels, uint8_t flip, uint8_t *out) {
  const int group = 4 / elem_bytes;
  const int64_t unit_rows = (k + group - 1) / group;
  const int64_t panel_bytes = unit_rows * width * 4;
  std::memset(out, 0, static_cast<size_t>(panel_bytes * panels));
  for (int64_t p = 0; p < k; ++p) {
    const uint8_t *line = src + p * stride;
    for (int c = 0; c < cols; ++c) {
      uint8_t *o = out + (c / width) * panel_bytes + (p / group) * width * 4 + (c % width) * 4 +
                   (p % group) * elem_bytes;
      for (int b = 0; b < elem_bytes; ++b)
        o[b] = static_cast<uint8_t>(line[c * elem_bytes + b] ^ flip);
    }
  }
}

void pack_column_sums_generic(const int8_t *panel, int64_t unit_rows, int width, int32_t *sums) {
  for (int t = 0; t < width; ++t) sums[t] = 0;
  for (int64_t u = 0; u < unit_rows; ++u, panel += width * 4)
    for (int t = 0; t < width; ++t)
      sums[t] = static_cast<int32_t>(static_cast<uint32_t>(sums[t]) +
                                     static_cast<uint32_t>(panel[t * 4] + panel[t * 4 + 1] +
                                                           panel[t * 4 + 2] + panel[t * 4 + 3]));
}

}  // namespace dlk::cpu::kernels
