// Backward data at stride 2 x 2 split into phases. diff_src's pixels fall
// into four phases by the parity (py, px) of their row and column; each
// phase is the stride-1 convolution of diff_dst with the forward's taps of
// that parity turned around (a 3x3 kernel with padding 1 gives phases of 1 x
// 1, 1 x 2, 2 x 1 and 2 x 2 taps, 9 in all), so no product is spent on the
// zeros that a stride-1 convolution over diff_dst dilated by the stride would
// multiply (3 in 4 of them). The AMX implicit GEMM runs the phases of bf16
// (conv2d_backward_data_amx_phases.hpp), the wide-row kernel those of groups
// of few channels (conv2d_backward_data_wide_rows_phases.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "core/backend.hpp"

namespace dlk::cpu {

// The phases of backward data's args (the forward's shape).
struct DataPhases {
  explicit DataPhases(const core::Conv2dArgs &args);
  // One dimension (rows, or columns) of the phases of either parity.
  struct Axis {
    int64_t taps[2] = {};     // the phase's kernel extent
    int64_t first[2] = {};    // its tap 0 as the forward's kernel index (its parity's last)
    int64_t outputs[2] = {};  // diff_src's rows of that parity
    // diff_dst's row read by a phase's output 0 at its tap 0, both
    // parities alike (else no phases: valid false), and the rows of the
    // padded diff_dst that the phases read from there.
    int64_t offset = 0, padded = 0;
  };
  Axis rows, cols;
  bool valid = false;  // every phase has taps and outputs, and one offset per axis

  // The forward's tap that each of phase p's taps reads (phase p = 2 py + px;
  // its tap (i, j) reads diff_dst's row i + rows.offset + output row, column
  // likewise).
  std::vector<int64_t> source_taps(const core::Conv2dArgs &args, int p) const;
};

}  // namespace dlk::cpu
