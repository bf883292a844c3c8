#include "backends/cpu_avx512/conv2d_data_phases.hpp"

#include <algorithm>

namespace dlk::cpu {
namespace {

// Output pixel y = 2 i + parity reads diff_dst row (y + pad - r) / 2 at the
// forward's tap r of the same parity as y + pad: phase tap a is r = first -
// 2 a, row i + offset + a. padded stays 0 where the phases do not apply.
DataPhases::Axis axis(int64_t kernel, int64_t pad, int64_t extent) {
  DataPhases::Axis x;
  int64_t offsets[2] = {}, padded = 0;
  for (int parity = 0; parity < 2; ++parity) {
    const int64_t r0 = (parity + pad) % 2;
    x.taps[parity] = r0 < kernel ? (kernel - 1 - r0) / 2 + 1 : 0;
    x.first[parity] = r0 + 2 * (x.taps[parity] - 1);
    x.outputs[parity] = (extent + 1 - parity) / 2;
    offsets[parity] = (parity + pad - x.first[parity]) / 2;
    padded = std::max(padded, x.outputs[parity] + x.taps[parity] - 1);
  }
  x.offset = offsets[0];
  if (offsets[0] == offsets[1] && x.taps[0] > 0 && x.taps[1] > 0 && x.outputs[1] > 0)
    x.padded = padded;
  return x;
}

}  // namespace

DataPhases::DataPhases(const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &d = a.desc;
  rows = axis(d.kh, d.pad_h, d.h);
  cols = axis(d.kw, d.pad_w, d.w);
  valid = d.stride_h == 2 && d.stride_w == 2 && d.dilation_h == 1 && d.dilation_w == 1 &&
          rows.padded > 0 && cols.padded > 0;
}

std::vector<int64_t> DataPhases::source_taps(const core::Conv2dArgs &a, int p) const {
  const int py = p / 2, px = p % 2;
  std::vector<int64_t> taps;
  for (int64_t i = 0; i < rows.taps[py]; ++i)
    for (int64_t j = 0; j < cols.taps[px]; ++j)
      taps.push_back((rows.first[py] - 2 * i) * a.desc.kw + cols.first[px] - 2 * j);
  return taps;
}

}  // namespace dlk::cpu
