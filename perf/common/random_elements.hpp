// Random operands for dlk-perf's problems, in any dtype dlk takes, as raw bytes:
// floats uniform in [-1, 1] (bf16 rounded to nearest even, as dlk and oneDNN
// convert), u8 in [0, 255], s8 in [-128, 127]; the same seed gives the same data.
#pragma once

#include <cstddef>
#include <vector>

#include "dlk/dlk.h"

namespace dlk::perf {

// f32, bf16, u8, s8; any other type throws std::invalid_argument.
std::vector<unsigned char> random_elements(dlk_dtype type, size_t count, unsigned seed);

}  // namespace dlk::perf
