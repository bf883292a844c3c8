// Portable packing kernels for the scalar and AVX2 tiers (and the reference the
// AVX-512 ones are tested against): 4-byte unit copies in loops the compiler
// turns into plain moves (a byte loop with a division per element took 60 % of
// an AVX2-tier 256^3 GEMM).
#include <cstring>

#include "backends/cpu_avx512/kernels/gemm_pack_kernels.hpp"

namespace dlk::cpu::kernels {
namespace {

uint32_t flip_unit(uint8_t flip) { return uint32_t{flip} * 0x01010101u; }

// One line of panel_contiguous: `n` elements to `out` at a 4-byte step.
template <int ElemBytes>
void spread_line(const uint8_t *line, int n, uint8_t flip, uint8_t *out) {
  if constexpr (ElemBytes == 4) {
    const uint32_t x = flip_unit(flip);
    for (int c = 0; c < n; ++c) {
      uint32_t v;
      std::memcpy(&v, line + 4 * c, 4);
      v ^= x;
      std::memcpy(out + 4 * c, &v, 4);
    }
  } else {
    for (int c = 0; c < n; ++c)
      for (int b = 0; b < ElemBytes; ++b)
        out[4 * c + b] = static_cast<uint8_t>(line[ElemBytes * c + b] ^ flip);
  }
}

template <int ElemBytes>
void pack_lines(const uint8_t *src, int64_t stride, int64_t k, int cols, int width, int panels,
                uint8_t flip, uint8_t *out) {
  constexpr int group = 4 / ElemBytes;
  const int64_t unit_rows = (k + group - 1) / group;
  const int64_t panel_bytes = unit_rows * width * 4;
  // Zeros only where the matrix leaves padding: columns past its edge, k past
  // its end within the last unit-row.
  if (cols < width * panels || k % group != 0)
    std::memset(out, 0, static_cast<size_t>(panel_bytes * panels));
  for (int64_t p = 0; p < k; ++p) {
    const uint8_t *line = src + p * stride;
    uint8_t *row = out + (p / group) * width * 4 + (p % group) * ElemBytes;
    for (int q = 0; q * width < cols; ++q)
      spread_line<ElemBytes>(line + int64_t{q} * width * ElemBytes,
                             cols - q * width < width ? cols - q * width : width, flip,
                             row + q * panel_bytes);
  }
}

}  // namespace

void pack_k_contiguous_generic(const uint8_t *src, int64_t stride, int rows, int64_t bytes,
                               int width, uint8_t flip, uint8_t *out) {
  const int64_t units = (bytes + 3) / 4, full = bytes / 4;
  const uint32_t x = flip_unit(flip);
  for (int t = 0; t < width; ++t) {
    uint8_t *o = out + 4 * t;
    // Rows past `rows` are padding: no address is formed for them.
    if (t >= rows) {
      for (int64_t u = 0; u < units; ++u) std::memset(o + u * width * 4, 0, 4);
      continue;
    }
    const uint8_t *row = src + t * stride;
    for (int64_t u = 0; u < full; ++u) {
      uint32_t v;
      std::memcpy(&v, row + 4 * u, 4);
      v ^= x;
      std::memcpy(o + u * width * 4, &v, 4);
    }
    if (full < units) {
      uint8_t unit[4] = {0, 0, 0, 0};
      for (int64_t b = 4 * full; b < bytes; ++b) unit[b - 4 * full] = static_cast<uint8_t>(row[b] ^ flip);
      std::memcpy(o + full * width * 4, unit, 4);
    }
  }
}

void pack_panel_contiguous_generic(const uint8_t *src, int64_t stride, int elem_bytes, int64_t k,
                                   int cols, int width, int panels, uint8_t flip, uint8_t *out) {
  switch (elem_bytes) {
    case 4: return pack_lines<4>(src, stride, k, cols, width, panels, flip, out);
    case 2: return pack_lines<2>(src, stride, k, cols, width, panels, flip, out);
    default: return pack_lines<1>(src, stride, k, cols, width, panels, flip, out);
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
