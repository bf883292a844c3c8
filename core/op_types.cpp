#include "core/op_types.hpp"

namespace dlk::core {
namespace {

bool is_float(dlk_dtype t) { return t == DLK_DTYPE_F32 || t == DLK_DTYPE_F16 || t == DLK_DTYPE_BF16; }
bool is_int8(dlk_dtype t) { return t == DLK_DTYPE_U8 || t == DLK_DTYPE_S8; }
bool is_int8_output(dlk_dtype t) {
  return t == DLK_DTYPE_S32 || t == DLK_DTYPE_F32 || is_int8(t);
}

}  // namespace

const std::vector<TypeCombo> &gemm_type_combos() {
  static const std::vector<TypeCombo> combos = [] {
    std::vector<TypeCombo> v = {{DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32},
                                {DLK_DTYPE_F16, DLK_DTYPE_F16, DLK_DTYPE_F16},
                                {DLK_DTYPE_F16, DLK_DTYPE_F16, DLK_DTYPE_F32},
                                {DLK_DTYPE_BF16, DLK_DTYPE_BF16, DLK_DTYPE_BF16},
                                {DLK_DTYPE_BF16, DLK_DTYPE_BF16, DLK_DTYPE_F32}};
    for (dlk_dtype a : {DLK_DTYPE_U8, DLK_DTYPE_S8})
      for (dlk_dtype c : {DLK_DTYPE_S32, DLK_DTYPE_F32, DLK_DTYPE_S8, DLK_DTYPE_U8})
        v.push_back({a, DLK_DTYPE_S8, c});
    return v;
  }();
  return combos;
}

bool op_defines_types(dlk_op op, dlk_dtype a, dlk_dtype b, dlk_dtype c) {
  switch (op) {
    case DLK_OP_GEMM:
      for (const TypeCombo &t : gemm_type_combos())
        if (t.a == a && t.b == b && t.c == c) return true;
      return false;
    case DLK_OP_CONV2D_FORWARD:
      if (is_int8(a)) return b == DLK_DTYPE_S8 && is_int8_output(c);
      return is_float(a) && b == a && c == a;
    case DLK_OP_CONV2D_BACKWARD_DATA:
    case DLK_OP_CONV2D_BACKWARD_WEIGHTS:
    case DLK_OP_POOL2D_BACKWARD:
      return is_float(a) && b == a && c == a;
    case DLK_OP_POOL2D_FORWARD:
      return (is_float(a) || is_int8(a)) && b == a && c == a;
  }
  return false;
}

}  // namespace dlk::core
