/* Calls that pass an int outside an enum's values by value, as a C caller may:
 * in C that is a plain conversion, while C++ cannot form such an enum value
 * without undefined behaviour, so the C++ tests make these calls through here. */
#ifndef DLK_TESTS_CORE_C_ENUM_CALLS_H
#define DLK_TESTS_CORE_C_ENUM_CALLS_H

#include <stddef.h>

#include "dlk/dlk.h"

#ifdef __cplusplus
extern "C" {
#endif

const char *c_status_name(int status);
const char *c_dtype_name(int dtype);
size_t c_dtype_size(int dtype);
const char *c_op_name(int op);
dlk_status c_context_supports(dlk_context_t context, int op, int a_type, int b_type, int c_type,
                              int *supported);
dlk_status c_memcpy(dlk_context_t context, void *dst, const void *src, size_t bytes, int kind);

#ifdef __cplusplus
}
#endif

#endif /* DLK_TESTS_CORE_C_ENUM_CALLS_H */
