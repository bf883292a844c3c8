#include <cmath>
#include <iterator>

#include "core/error.hpp"
#include "core/validate.hpp"

namespace dlk::core::check {

int64_t mul(const char *call, const char *argument, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    throw_invalid(call, argument, "makes a size that overflows 64 bits");
  return r;
}

int64_t add(const char *call, const char *argument, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    throw_invalid(call, argument, "makes a size that overflows 64 bits");
  return r;
}

Span span(const char *call, const char *name, const void *ptr, dlk_dtype dtype,
          const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
  Span s;
  s.ptr = ptr;
  s.name = name;
  int64_t last = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0) return s;
    last = add(call, name, last, mul(call, name, dims[i] - 1, strides[i]));
  }
  s.bytes = mul(call, name, add(call, name, last, 1), static_cast<int64_t>(dlk_dtype_size(dtype)));
  return s;
}

Span dense(const char *call, const char *name, const void *ptr, dlk_dtype dtype, int64_t elements) {
  Span s;
  s.ptr = ptr;
  s.name = name;
  s.bytes = mul(call, name, elements, static_cast<int64_t>(dlk_dtype_size(dtype)));
  return s;
}

int64_t dense_bytes(const char *call, dlk_dtype dtype, std::initializer_list<Dim> dims) {
  // Innermost first, so the overflow is charged to the dim that tips the product over.
  int64_t bytes = static_cast<int64_t>(dlk_dtype_size(dtype));
  for (auto dim = std::rbegin(dims); dim != std::rend(dims); ++dim)
    bytes = mul(call, dim->name, bytes, dim->size);
  return bytes;
}

void not_null(const char *call, const Span &s) {
  if (s.bytes > 0 && !s.ptr) throw_invalid(call, s.name, "must not be NULL");
}

void no_overlap(const char *call, const Span &output, const Span &input) {
  if (output.bytes == 0 || input.bytes == 0) return;
  const auto o = reinterpret_cast<uintptr_t>(output.ptr);
  const auto i = reinterpret_cast<uintptr_t>(input.ptr);
  if (o < i + static_cast<uintptr_t>(input.bytes) && i < o + static_cast<uintptr_t>(output.bytes))
    throw_invalid(call, output.name, std::string("overlaps '") + input.name +
                                         "' (outputs must not alias inputs)");
}

void at_least(const char *call, const char *argument, int64_t value, int64_t minimum,
              const std::string &why) {
  if (value < minimum)
    throw_invalid(call, argument, "is " + std::to_string(value) + "; must be >= " +
                                      std::to_string(minimum) + (why.empty() ? "" : " (" + why + ")"));
}

bool holds_dtype(const dlk_dtype &field) {
  return holds(field, {DLK_DTYPE_F32, DLK_DTYPE_F16, DLK_DTYPE_BF16, DLK_DTYPE_S8, DLK_DTYPE_U8,
                       DLK_DTYPE_S32});
}

bool is_int8(dlk_dtype t) { return t == DLK_DTYPE_S8 || t == DLK_DTYPE_U8; }
bool is_float(dlk_dtype t) {
  return t == DLK_DTYPE_F32 || t == DLK_DTYPE_F16 || t == DLK_DTYPE_BF16;
}

void zero_point_fits(const char *call, const char *argument, int32_t zero_point, dlk_dtype t) {
  int32_t lo = 0, hi = 0;
  if (t == DLK_DTYPE_U8) hi = 255;
  if (t == DLK_DTYPE_S8) lo = -128, hi = 127;
  if (zero_point < lo || zero_point > hi)
    throw_invalid(call, argument,
                  "is " + std::to_string(zero_point) + "; must be in [" + std::to_string(lo) + ", " +
                      std::to_string(hi) + "] for " + dlk_dtype_name(t) +
                      (is_int8(t) ? "" : " (zero points apply to int8 tensors only)"));
}

void scales(const char *call, const float *values, int64_t count) {
  // Like any array argument, an empty one may be NULL (per-channel scales of n == 0).
  if (!values && count > 0)
    throw_invalid(call, "scales", "must not be NULL when scale_mode is not DLK_SCALE_NONE");
  for (int64_t i = 0; i < count; ++i)
    if (!std::isfinite(values[i]))
      throw_invalid(call, "scales", "[" + std::to_string(i) + "] is not finite");
}

std::string valid_list(const std::vector<std::string> &items) {
  std::string s;
  for (const auto &i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

void struct_size(const char *call, const char *argument, const void *given, size_t size,
                 size_t known, const char *how_to_fill) {
  if (size < known)
    throw_invalid(call, argument,
                  "has struct_size " + std::to_string(size) + "; must be " + std::to_string(known) +
                      " (fill it with " + how_to_fill + ")");
  const auto *bytes = static_cast<const unsigned char *>(given);
  for (size_t i = known; i < size; ++i)
    if (bytes[i] != 0)
      throw_unsupported(call, std::string("argument '") + argument + "' has struct_size " +
                                  std::to_string(size) + ", from a later dlk.h, and sets fields " +
                                  "past the " + std::to_string(known) +
                                  " bytes this libdlk knows");
}

void output_size(const char *call, const char *argument, size_t size, size_t known) {
  if (size < known)
    throw_invalid(call, argument,
                  "has size " + std::to_string(size) + "; must be at least " +
                      std::to_string(known) + " (the struct's sizeof)");
}

}  // namespace dlk::core::check
