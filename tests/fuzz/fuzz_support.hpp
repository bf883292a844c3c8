// What the entry-point fuzzers share: a reader that turns the fuzzer's bytes into
// descriptor fields (mostly small valid values, sometimes the edges: 0, negative,
// huge, enum values outside the enum), buffers with an inaccessible page on each
// side so that a read or write past either end traps at once, and the checks
// every target applies. Any violation traps; ASan and UBSan watch everything else.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "dlk/dlk.h"

namespace dlk_fuzz {

inline void require(bool condition) {
  if (!condition) __builtin_trap();
}

class Bytes {
 public:
  Bytes(const uint8_t *data, size_t size) : data_(data), size_(size) {}

  uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }
  bool flag() { return u8() & 1; }

  // A size or stride: mostly 0..31, sometimes negative or huge.
  int64_t dim() {
    const uint8_t b = u8();
    switch (b >> 5) {
      case 6: return -1 - (b & 3);
      case 7:
        return (b & 31) == 31 ? std::numeric_limits<int64_t>::max() : int64_t(1) << (31 + (b & 31));
      default: return b & 31;
    }
  }
  // One of n valid enum values (0..n-1, mapped by the caller), or now and then
  // a raw int outside them.
  int choice(int n) {
    const uint8_t b = u8();
    if (b >= 248) return 1000 + b;  // out of range: the caller stores it as the raw int
    return b % n;
  }
  // A float: mostly small integers, sometimes any bit pattern (NaN, inf, denormals).
  float real() {
    const uint8_t b = u8();
    if (b < 224) return float(int(b % 9) - 4) * 0.5f;
    uint32_t bits = uint32_t(u8()) | uint32_t(u8()) << 8 | uint32_t(u8()) << 16 | uint32_t(u8()) << 24;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  // Fills dst with the bytes left, repeated (zeros when none are left).
  void fill(void *dst, size_t bytes) {
    auto *out = static_cast<uint8_t *>(dst);
    const size_t left = size_ - pos_;
    for (size_t i = 0; i < bytes; ++i) out[i] = left ? data_[pos_ + i % left] : 0;
  }

 private:
  const uint8_t *data_;
  size_t size_;
  size_t pos_ = 0;
};

// `bytes` bytes that end flush against an inaccessible page, with another before
// them: the first byte past either end faults. Zero bytes: a non-NULL pointer at
// the guard page.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(size_t bytes) : bytes_(bytes) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    const size_t body = (bytes + page - 1) / page * page;
    mapped_ = body + 2 * page;
    void *m = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    require(m != MAP_FAILED);
    base_ = static_cast<uint8_t *>(m);
    require(mprotect(base_, page, PROT_NONE) == 0);
    require(mprotect(base_ + page + body, page, PROT_NONE) == 0);
    data_ = base_ + page + body - bytes;
  }
  ~GuardedBuffer() { munmap(base_, mapped_); }
  GuardedBuffer(const GuardedBuffer &) = delete;
  GuardedBuffer &operator=(const GuardedBuffer &) = delete;

  uint8_t *data() { return data_; }
  size_t size() const { return bytes_; }
  // Filled with a pattern no op writes by chance, to show a rejected call wrote nothing.
  void poison() { std::memset(data_, 0xA5, bytes_); }
  bool poisoned() const {
    for (size_t i = 0; i < bytes_; ++i)
      if (data_[i] != 0xA5) return false;
    return true;
  }

 private:
  size_t bytes_;
  size_t mapped_ = 0;
  uint8_t *base_ = nullptr;
  uint8_t *data_ = nullptr;
};

// Sizes beyond these are not allocated nor run: the targets stay fast.
constexpr int64_t kMaxBufferBytes = int64_t(16) << 20;
constexpr double kMaxWork = double(1 << 22);

// a * b, or INT64_MAX when that overflows: huge stays huge.
inline int64_t saturated(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<int64_t>::max() : r;
}

// a * b + c with every term >= 0, or -1 when it overflows int64 or a term is negative.
inline int64_t extent(int64_t a, int64_t b, int64_t c = 0) {
  int64_t r;
  if (a < 0 || b < 0 || c < 0 || __builtin_mul_overflow(a, b, &r) || __builtin_add_overflow(r, c, &r))
    return -1;
  return r;
}

}  // namespace dlk_fuzz

namespace dlk_fuzz {

// The buffers of one call: each sized from the descriptor by the target (its
// own reading of dlk.h's rules, independent of core's validation). A tensor whose
// size is negative, overflows or is beyond the limits gets NULL, and marks the
// call as one that must fail: a descriptor too big to run is then either invalid
// or refused for the NULL pointer, never run on a buffer too small for it.
class Buffers {
 public:
  explicit Buffers(Bytes &in) : in_(in) {}
  ~Buffers() {
    for (int i = 0; i < count_; ++i) delete buffers_[i];
  }
  Buffers(const Buffers &) = delete;
  Buffers &operator=(const Buffers &) = delete;

  // An input, filled from the fuzzer's bytes.
  uint8_t *input(int64_t bytes) { return make(bytes, false); }
  // An output, poisoned, checked by outputs_untouched().
  uint8_t *output(int64_t bytes) { return make(bytes, true); }

  bool must_fail() const { return must_fail_; }
  void add_work(double work) {
    if (work > kMaxWork) must_fail_ = true;
  }
  bool outputs_untouched() const {
    for (int i = 0; i < count_; ++i)
      if (is_output_[i] && !buffers_[i]->poisoned()) return false;
    return true;
  }
  static constexpr int kMax = 8;

 private:
  uint8_t *make(int64_t bytes, bool output) {
    if (bytes < 0 || bytes > kMaxBufferBytes || count_ == kMax) {
      must_fail_ = true;
      return nullptr;
    }
    auto *b = new GuardedBuffer(size_t(bytes));
    if (output)
      b->poison();
    else
      in_.fill(b->data(), b->size());
    buffers_[count_] = b;
    is_output_[count_++] = output;
    return b->data();
  }

  Bytes &in_;
  GuardedBuffer *buffers_[kMax] = {};
  bool is_output_[kMax] = {};
  int count_ = 0;
  bool must_fail_ = false;
};

}  // namespace dlk_fuzz

namespace dlk_fuzz {

// Stores values[index] in an enum field, or an index >= 1000 (Bytes::choice's out
// of range) as the raw int, as a C caller may.
template <class Enum>
void store(Enum &field, int index, const Enum *values) {
  const int raw = index < 1000 ? int(values[index]) : index;
  std::memcpy(&field, &raw, sizeof raw);
}

// dlk_dtype_size of a field that may hold a value outside dlk_dtype (read as an
// int: C++ may not load it as the enum); 1 for such a value, which calls refuse.
inline int64_t dtype_size(const dlk_dtype &field) {
  int raw;
  std::memcpy(&raw, &field, sizeof raw);
  for (const dlk_dtype t : {DLK_DTYPE_F32, DLK_DTYPE_F16, DLK_DTYPE_BF16, DLK_DTYPE_S8,
                            DLK_DTYPE_U8, DLK_DTYPE_S32})
    if (raw == int(t)) return int64_t(dlk_dtype_size(t));
  return 1;
}

// One CPU context for the whole run, on one thread (the fuzzer's speed).
inline dlk_context_t context() {
  static dlk_context_t ctx = [] {
    dlk_context_options options;
    dlk_context_options_init(&options);
    options.backend = "cpu";
    options.num_threads = 1;
    dlk_context_t c = nullptr;
    require(dlk_context_create(&c, &options) == DLK_STATUS_SUCCESS);
    return c;
  }();
  return ctx;
}

// The checks after every call of `call`: a failure left the outputs untouched and
// left a message naming the call; a success left no message, and was possible
// (the buffers could be given).
inline void check_outcome(const char *call, dlk_status status, const Buffers &buffers,
                          bool may_succeed_without_buffers = false) {
  if (status != DLK_STATUS_SUCCESS) {
    require(buffers.outputs_untouched());
    require(std::string(dlk_last_error()).rfind(std::string(call) + ": ", 0) == 0);
  } else {
    require(!buffers.must_fail() || may_succeed_without_buffers);
    require(dlk_last_error()[0] == '\0');
  }
}

}  // namespace dlk_fuzz
