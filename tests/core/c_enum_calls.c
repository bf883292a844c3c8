#include "tests/core/c_enum_calls.h"

const char *c_status_name(int status) { return dlk_status_name((dlk_status)status); }
const char *c_dtype_name(int dtype) { return dlk_dtype_name((dlk_dtype)dtype); }
size_t c_dtype_size(int dtype) { return dlk_dtype_size((dlk_dtype)dtype); }
const char *c_op_name(int op) { return dlk_op_name((dlk_op)op); }

dlk_status c_context_supports(dlk_context_t context, int op, int a_type, int b_type, int c_type,
                              int *supported) {
  return dlk_context_supports(context, (dlk_op)op, (dlk_dtype)a_type, (dlk_dtype)b_type,
                              (dlk_dtype)c_type, supported);
}

dlk_status c_memcpy(dlk_context_t context, void *dst, const void *src, size_t bytes, int kind) {
  return dlk_memcpy(context, dst, src, bytes, (dlk_copy_kind)kind);
}
