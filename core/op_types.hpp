// Which type signatures each op defines (dlk.h): the one table that validation,
// dlk_context_supports and backends agree on.
#pragma once

#include <vector>

#include "dlk/dlk.h"

namespace dlk::core {

struct TypeCombo {
  dlk_dtype a, b, c;
};

// GEMM (a, b, c), in the order error messages list them.
const std::vector<TypeCombo> &gemm_type_combos();

// Whether the API defines `op` for these types: GEMM (a, b, c); conv2d (src,
// weights, dst); pool2d (src, src, dst).
bool op_defines_types(dlk_op op, dlk_dtype a, dlk_dtype b, dlk_dtype c);

}  // namespace dlk::core
