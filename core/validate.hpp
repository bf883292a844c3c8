// Argument validation, in one place for every op (oneDNN's common-file pattern):
// each function checks every rule of its call, throws the first broken one as an
// invalid-argument Error naming the argument, and returns the normalised args.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/enum_field.hpp"
#include "core/op_args.hpp"

namespace dlk::core {

GemmArgs validate_gemm(const dlk_gemm_desc *desc, const void *a, const void *b, void *c,
                       std::vector<float> &multiplier_storage);

// Shape-only rules, shared by dlk_conv2d_output_shape and the ops.
Conv2dArgs validate_conv2d_desc(const char *call, const dlk_conv2d_desc *desc, dlk_op op);
void validate_conv2d_forward(Conv2dArgs &args, const char *call = "dlk_conv2d_forward");
void validate_conv2d_backward_data(Conv2dArgs &args,
                                   const char *call = "dlk_conv2d_backward_data");
void validate_conv2d_backward_weights(Conv2dArgs &args);
// dlk_conv2d_weights_create(_for): args.weights for the forward of args.desc;
// their bytes.
size_t validate_conv2d_weights_create(const Conv2dArgs &args, const char *call);
// A call with packed weights: its desc must be the weights' but for n, scales
// and (compare_relu false: backward data) relu; the error names the first
// field that differs.
void validate_conv2d_packed_desc(const char *call, const dlk_conv2d_desc &given,
                                 const dlk_conv2d_desc &packed, bool compare_relu);

Pool2dArgs validate_pool2d_desc(const char *call, const dlk_pool2d_desc *desc, dlk_op op);
void validate_pool2d_forward(Pool2dArgs &args);
void validate_pool2d_backward(Pool2dArgs &args);

// Helpers the validators share.
namespace check {

// a * b, or an invalid-argument error on `argument` when it overflows int64.
int64_t mul(const char *call, const char *argument, int64_t a, int64_t b);
int64_t add(const char *call, const char *argument, int64_t a, int64_t b);

// The bytes a tensor occupies: `runs` x `batch` runs of `run_bytes` contiguous
// bytes, run r of batch b at ptr + b * batch_pitch + r * run_pitch (a dense
// tensor is one run; a stored matrix is one run per row, or per column when
// column-major). `bytes` is the whole span, from the first byte to the last.
struct Span {
  const void *ptr = nullptr;
  int64_t bytes = 0;
  const char *name = "";
  int64_t batch = 1, batch_pitch = 0, runs = 1, run_pitch = 0, run_bytes = 0;
};
// A batch of stored matrices of `outer` x `inner` elements, inner contiguous,
// ld elements apart, batch_stride elements from one matrix to the next.
Span matrices(const char *call, const char *name, const void *ptr, dlk_dtype dtype, int64_t batch,
              int64_t batch_stride, int64_t outer, int64_t ld, int64_t inner);
// Dense tensor with `elements` elements.
Span dense(const char *call, const char *name, const void *ptr, dlk_dtype dtype, int64_t elements);

// Bytes of a dense tensor of `dtype` with these dims (outermost first), or an
// invalid-argument error naming the dim whose product overflows 64 bits.
struct Dim {
  const char *name;
  int64_t size;
};
int64_t dense_bytes(const char *call, dlk_dtype dtype, std::initializer_list<Dim> dims);

void not_null(const char *call, const Span &s);
// The one aliasing rule of every op: no output shares a byte with an input the
// call reads (scales included) or with another output. Bytes, not spans: a
// matrix placed in the gaps between the rows of a strided one is apart from it.
void apart(const char *call, std::initializer_list<Span> outputs, std::initializer_list<Span> inputs);

void at_least(const char *call, const char *argument, int64_t value, int64_t minimum,
              const std::string &why = "");
// Whether an enum field of a descriptor holds one of `valid`, read from its
// bytes (common/enum_field.hpp). Check a field this way before anything else reads it.
template <class Enum>
bool holds(const Enum &field, std::initializer_list<Enum> valid) {
  const int stored = enum_field::stored_int(field);
  for (Enum e : valid)
    if (stored == static_cast<int>(e)) return true;
  return false;
}
bool holds_dtype(const dlk_dtype &field);
bool is_int8(dlk_dtype t);
bool is_float(dlk_dtype t);
void zero_point_fits(const char *call, const char *argument, int32_t zero_point, dlk_dtype t);
// scales[0..count) exist (non-NULL) and are finite.
void scales(const char *call, const float *scales, int64_t count);
std::string valid_list(const std::vector<std::string> &items);

// The size rule of the growable structs (dlk.h): `size` is the struct's size where
// the caller was compiled, `known` the size this library has. Below `known`
// (the only size these structs have had so far) it is invalid; above it, the
// bytes past `known` (fields of a later dlk.h) must be 0, else unsupported.
void struct_size(const char *call, const char *argument, const void *given, size_t size,
                 size_t known, const char *how_to_fill);

// An output struct of the caller's `size`: at least this library's sizeof.
void output_size(const char *call, const char *argument, size_t size, size_t known);

}  // namespace check
}  // namespace dlk::core
