// Working memory an op borrows from its context (as oneDNN's scratchpad): one
// buffer per backend object, grown to the largest size asked for so far and kept
// between calls, so a steady stream of ops allocates nothing. Its size never
// passes kScratchBound, whatever the problem: an op plans its blocking within
// the bound, and one that cannot (a single unit of its work would not fit) is
// refused with an error naming the arguments that make it too large.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace dlk::cpu {

// 64 MiB: room for every thread's GEMM blocks and im2col panels of up to 64
// threads at full block size (about 0.75 MiB a thread), and for a few
// image planes where pooling needs them.
constexpr size_t kScratchBound = size_t{64} << 20;

class Scratch {
 public:
  // At least `bytes` bytes, 64-byte aligned, valid until the next call. Throws
  // DLK_STATUS_UNSUPPORTED "<call>: <why>" when bytes exceed kScratchBound.
  void *get(size_t bytes, const char *call, const std::string &why);
  size_t capacity() const { return size_; }

 private:
  struct Free {
    void operator()(void *p) const;
  };
  std::unique_ptr<void, Free> buffer_;
  size_t size_ = 0;
};

// Typed views of parts of one scratch request: carve(n) hands out n elements of
// T, each part 64-byte aligned. `bytes_for` sizes the request beforehand.
class ScratchCarver {
 public:
  explicit ScratchCarver(void *base) : next_(static_cast<unsigned char *>(base)) {}
  template <class T>
  T *carve(int64_t count) {
    T *p = reinterpret_cast<T *>(next_);
    next_ += aligned(static_cast<size_t>(count) * sizeof(T));
    return p;
  }
  static size_t aligned(size_t bytes) { return (bytes + 63) / 64 * 64; }

 private:
  unsigned char *next_;
};

}  // namespace dlk::cpu
