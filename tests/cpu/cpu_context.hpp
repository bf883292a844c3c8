// A CPU context on one ISA tier and device buffers of it, for the tests here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "dlk/dlk.h"

namespace dlk::cpu_test {

// The tiers this CPU has, best first ("avx512", "avx2", "scalar").
std::vector<std::string> cpu_tiers();

class Context {
 public:
  // isa empty: the best this CPU has (or DLK_CPU_ISA); threads 0: the default.
  explicit Context(const std::string &isa = "", int threads = 0);
  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  dlk_context_t get() const { return ctx_; }

 private:
  dlk_context_t ctx_ = nullptr;
};

// dlk_malloc'ed memory holding a copy of `values`.
template <class T>
class Buffer {
 public:
  Buffer(const Context &ctx, const std::vector<T> &values) : ctx_(ctx.get()), size_(values.size()) {
    dlk_malloc(ctx_, std::max<size_t>(1, size_) * sizeof(T), &ptr_);
    if (size_) std::memcpy(ptr_, values.data(), size_ * sizeof(T));
  }
  ~Buffer() { dlk_free(ctx_, ptr_); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  T *data() { return static_cast<T *>(ptr_); }
  std::vector<T> values() const {
    const T *p = static_cast<const T *>(ptr_);
    return std::vector<T>(p, p + size_);
  }

 private:
  dlk_context_t ctx_;
  size_t size_;
  void *ptr_ = nullptr;
};

// C after dlk_gemm(d) on f32 a and b, C f32 column-major (d.n columns of d.ldc
// elements) starting as -1s, so that a store past C's rows shows.
std::vector<float> column_major_gemm(const Context &ctx, const dlk_gemm_desc &d,
                                     const std::vector<float> &a, const std::vector<float> &b);

// The implementation the context's last op ran (dlk_context_last_op).
std::string implementation(const Context &ctx);

// Whether the tier `isa` runs GEMM of `type` (bf16, or u8 x s8) on AMX tiles
// (the CPU has them and Linux lent them), and with it the convolutions of that
// type that lower to GEMM.
bool runs_on_amx(const std::string &isa, dlk_dtype type);
// Whether a convolution of `type` with c / groups input channels a group lowers
// to that GEMM rather than a direct kernel (conv2d_lowering.hpp,
// lowers_to_amx_gemm): bf16 or int8 on AMX, 16 channels a group or more.
bool lowers_to_amx(const std::string &isa, dlk_dtype type, int64_t c, int64_t groups);

// `count` integers drawn uniformly from [lo, hi]: data whose sums f32 holds
// exactly, so that every kernel's result is known bit for bit.
std::vector<int> random_ints(size_t count, int lo, int hi, std::mt19937 &rng);

// bf16 bits of v, rounded to nearest even; f16 bits of an integer |v| < 2048
// (held exactly).
uint16_t bf16_bits(float v);
uint16_t f16_bits(int64_t v);

template <class T, class S>
std::vector<T> cast(const std::vector<S> &v) {
  return std::vector<T>(v.begin(), v.end());
}

}  // namespace dlk::cpu_test
