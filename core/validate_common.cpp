#include <algorithm>
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

Span matrices(const char *call, const char *name, const void *ptr, dlk_dtype dtype, int64_t batch,
              int64_t batch_stride, int64_t outer, int64_t ld, int64_t inner) {
  Span s;
  s.ptr = ptr;
  s.name = name;
  if (batch == 0 || outer == 0 || inner == 0) return s;
  const auto elem = static_cast<int64_t>(dlk_dtype_size(dtype));
  const int64_t last =
      add(call, name, mul(call, name, batch - 1, batch_stride), mul(call, name, outer - 1, ld));
  s.bytes = mul(call, name, add(call, name, last, inner), elem);
  // A pitch counts only where there is a next batch or run; then it is within
  // `bytes`, so it cannot overflow (a lone run's ld may be anything).
  s.batch = batch;
  s.batch_pitch = batch > 1 ? batch_stride * elem : 0;
  s.runs = outer;
  s.run_pitch = outer > 1 ? ld * elem : 0;
  s.run_bytes = inner * elem;
  return s;
}

Span dense(const char *call, const char *name, const void *ptr, dlk_dtype dtype, int64_t elements) {
  Span s;
  s.ptr = ptr;
  s.name = name;
  s.bytes = mul(call, name, elements, static_cast<int64_t>(dlk_dtype_size(dtype)));
  s.run_bytes = s.bytes;
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

namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

// Whether run set x shares a byte with run set y, looking at each run of x in
// each batch of y: which runs of y a byte range meets follows by division.
bool runs_meet(const Span &x, const Span &y) {
  const auto x0 = reinterpret_cast<intptr_t>(x.ptr), y0 = reinterpret_cast<intptr_t>(y.ptr);
  for (int64_t bx = 0; bx < x.batch; ++bx)
    for (int64_t r = 0; r < x.runs; ++r)
      for (int64_t by = 0; by < y.batch; ++by) {
        // x's run is [s, e) counted from the first byte of y's batch `by`; y's run j
        // is [j * pitch, j * pitch + run_bytes). They meet when j * pitch is in
        // (s - run_bytes, e).
        const int64_t s = (x0 + bx * x.batch_pitch + r * x.run_pitch) - (y0 + by * y.batch_pitch);
        const int64_t e = s + x.run_bytes;
        if (y.runs == 1) {
          if (0 < e && y.run_bytes > s) return true;
          continue;
        }
        const int64_t first = std::max<int64_t>(0, floor_div(s - y.run_bytes, y.run_pitch) + 1);
        const int64_t last = std::min<int64_t>(y.runs - 1, floor_div(e - 1, y.run_pitch));
        if (first <= last) return true;
      }
  return false;
}

// Beyond this many (run, batch) pairs the bytes are not compared one run at a
// time: spans that cross are taken as an overlap (the documented conservative side).
constexpr double kExactCheckSteps = double(int64_t(1) << 22);

enum class Overlap { none, shared_bytes, crossing_spans };

Overlap overlap(const Span &a, const Span &b) {
  if (a.bytes == 0 || b.bytes == 0) return Overlap::none;
  const auto pa = reinterpret_cast<uintptr_t>(a.ptr), pb = reinterpret_cast<uintptr_t>(b.ptr);
  if (!(pa < pb + static_cast<uintptr_t>(b.bytes) && pb < pa + static_cast<uintptr_t>(a.bytes)))
    return Overlap::none;
  // The spans cross: look at the runs, from the side that costs fewer steps.
  const double cost_ab = double(a.batch) * double(a.runs) * double(b.batch);
  const double cost_ba = double(b.batch) * double(b.runs) * double(a.batch);
  if (std::min(cost_ab, cost_ba) > kExactCheckSteps) return Overlap::crossing_spans;
  const bool meet = cost_ab <= cost_ba ? runs_meet(a, b) : runs_meet(b, a);
  return meet ? Overlap::shared_bytes : Overlap::none;
}

// `named` is the argument the message names, `other` what it overlaps.
void check_apart(const char *call, const Span &named, const Span &other, const char *rule) {
  const Overlap o = overlap(named, other);
  if (o == Overlap::none) return;
  throw_invalid(call, named.name,
                std::string("overlaps '") + other.name + "' (" + rule +
                    (o == Overlap::crossing_spans
                         ? "; their spans cross and are too large to compare element by element)"
                         : ")"));
}

}  // namespace

void apart(const char *call, std::initializer_list<Span> outputs, std::initializer_list<Span> inputs) {
  for (auto o = outputs.begin(); o != outputs.end(); ++o) {
    for (const Span &i : inputs) check_apart(call, *o, i, "outputs must not alias inputs");
    for (auto later = std::next(o); later != outputs.end(); ++later)
      check_apart(call, *later, *o, "outputs must not alias each other");
  }
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
