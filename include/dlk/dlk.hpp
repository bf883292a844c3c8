// dlk C++17 wrapper: header-only, over the C ABI of dlk.h. Failures throw
// dlk::Error carrying the status and dlk_last_error()'s message; resources are
// owned by move-only RAII objects.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include "dlk/dlk.h"

namespace dlk {

class Error : public std::runtime_error {
 public:
  Error(dlk_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  dlk_status status() const noexcept { return status_; }

 private:
  dlk_status status_;
};

inline void check(dlk_status status) {
  if (status != DLK_STATUS_SUCCESS) throw Error(status, dlk_last_error());
}

// dlk_context_options with the library's defaults filled in.
inline dlk_context_options context_options() {
  dlk_context_options options;
  dlk_context_options_init(&options);
  return options;
}

inline dlk_gemm_desc gemm_desc(dlk_dtype a, dlk_dtype b, dlk_dtype c, int64_t m, int64_t n,
                               int64_t k) {
  dlk_gemm_desc desc;
  dlk_gemm_desc_init(&desc, a, b, c, m, n, k);
  return desc;
}

inline dlk_conv2d_desc conv2d_desc(dlk_dtype dtype, int64_t n, int64_t c, int64_t h, int64_t w,
                                   int64_t k, int64_t kh, int64_t kw) {
  dlk_conv2d_desc desc;
  dlk_conv2d_desc_init(&desc, dtype, n, c, h, w, k, kh, kw);
  return desc;
}

inline dlk_pool2d_desc pool2d_desc(dlk_pool_kind kind, dlk_dtype dtype, int64_t n, int64_t c,
                                   int64_t h, int64_t w, int64_t kh, int64_t kw) {
  dlk_pool2d_desc desc;
  dlk_pool2d_desc_init(&desc, kind, dtype, n, c, h, w, kh, kw);
  return desc;
}

// {oh, ow}
inline std::pair<int64_t, int64_t> output_shape(const dlk_conv2d_desc &desc) {
  std::pair<int64_t, int64_t> hw;
  check(dlk_conv2d_output_shape(&desc, &hw.first, &hw.second));
  return hw;
}

inline std::pair<int64_t, int64_t> output_shape(const dlk_pool2d_desc &desc) {
  std::pair<int64_t, int64_t> hw;
  check(dlk_pool2d_output_shape(&desc, &hw.first, &hw.second));
  return hw;
}

class Context {
 public:
  // Backend and settings from the environment (DLK_BACKEND, ...).
  Context() { check(dlk_context_create(&ctx_, nullptr)); }
  // backend: "auto", "cpu", "cuda", "fpga_sim"; everything else from the environment.
  explicit Context(const char *backend) {
    dlk_context_options options = context_options();
    options.backend = backend;
    check(dlk_context_create(&ctx_, &options));
  }
  explicit Context(const dlk_context_options &options) {
    check(dlk_context_create(&ctx_, &options));
  }
  ~Context() { dlk_context_destroy(ctx_); }
  Context(Context &&other) noexcept : ctx_(std::exchange(other.ctx_, nullptr)) {}
  Context &operator=(Context &&other) noexcept {
    std::swap(ctx_, other.ctx_);
    return *this;
  }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  dlk_context_t get() const noexcept { return ctx_; }

  dlk_context_info info() const {
    dlk_context_info info;
    check(dlk_context_get_info(ctx_, &info));
    return info;
  }
  bool supports(dlk_op op, dlk_dtype a, dlk_dtype b, dlk_dtype c) const {
    int yes = 0;
    check(dlk_context_supports(ctx_, op, a, b, c, &yes));
    return yes != 0;
  }
  dlk_op_record last_op() const {
    dlk_op_record record;
    check(dlk_context_last_op(ctx_, &record));
    return record;
  }
  // fpga_sim only: what the last op would take on the simulated accelerator.
  dlk_sim_record last_sim() const {
    dlk_sim_record record{};
    record.struct_size = sizeof(record);
    check(dlk_context_last_sim(ctx_, &record));
    return record;
  }

  void *malloc(size_t bytes) {
    void *ptr = nullptr;
    check(dlk_malloc(ctx_, bytes, &ptr));
    return ptr;
  }
  void free(void *ptr) { check(dlk_free(ctx_, ptr)); }
  void memcpy(void *dst, const void *src, size_t bytes, dlk_copy_kind kind) {
    check(dlk_memcpy(ctx_, dst, src, bytes, kind));
  }
  void synchronize() { check(dlk_synchronize(ctx_)); }

  void gemm(const dlk_gemm_desc &desc, const void *a, const void *b, void *c) {
    check(dlk_gemm(ctx_, &desc, a, b, c));
  }
  void conv2d_forward(const dlk_conv2d_desc &desc, const void *src, const void *weights,
                      const float *bias, void *dst) {
    check(dlk_conv2d_forward(ctx_, &desc, src, weights, bias, dst));
  }
  // packed: dlk_conv2d_weights_create_for's handle (Conv2dWeights::get()).
  void conv2d_forward_packed(const dlk_conv2d_desc &desc, const void *src,
                             dlk_conv2d_weights_t packed, const float *bias, void *dst) {
    check(dlk_conv2d_forward_packed(ctx_, &desc, src, packed, bias, dst));
  }
  void conv2d_backward_data(const dlk_conv2d_desc &desc, const void *diff_dst, const void *weights,
                            void *diff_src) {
    check(dlk_conv2d_backward_data(ctx_, &desc, diff_dst, weights, diff_src));
  }
  void conv2d_backward_data_packed(const dlk_conv2d_desc &desc, const void *diff_dst,
                                   dlk_conv2d_weights_t packed, void *diff_src) {
    check(dlk_conv2d_backward_data_packed(ctx_, &desc, diff_dst, packed, diff_src));
  }
  void conv2d_backward_weights(const dlk_conv2d_desc &desc, const void *src, const void *diff_dst,
                               void *diff_weights, float *diff_bias = nullptr) {
    check(dlk_conv2d_backward_weights(ctx_, &desc, src, diff_dst, diff_weights, diff_bias));
  }
  void pool2d_forward(const dlk_pool2d_desc &desc, const void *src, void *dst,
                      int32_t *argmax = nullptr) {
    check(dlk_pool2d_forward(ctx_, &desc, src, dst, argmax));
  }
  void pool2d_backward(const dlk_pool2d_desc &desc, const void *diff_dst, const int32_t *argmax,
                       void *diff_src) {
    check(dlk_pool2d_backward(ctx_, &desc, diff_dst, argmax, diff_src));
  }

 private:
  dlk_context_t ctx_ = nullptr;
};

// count elements of T in a context's device memory, freed with the buffer. The
// context must outlive it.
template <class T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(Context &context, size_t count)
      : ctx_(&context), ptr_(static_cast<T *>(context.malloc(count * sizeof(T)))), count_(count) {}
  ~Buffer() {
    if (ctx_) dlk_free(ctx_->get(), ptr_);
  }
  Buffer(Buffer &&other) noexcept
      : ctx_(std::exchange(other.ctx_, nullptr)),
        ptr_(std::exchange(other.ptr_, nullptr)),
        count_(std::exchange(other.count_, 0)) {}
  Buffer &operator=(Buffer &&other) noexcept {
    std::swap(ctx_, other.ctx_);
    std::swap(ptr_, other.ptr_);
    std::swap(count_, other.count_);
    return *this;
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  T *get() const noexcept { return ptr_; }
  size_t size() const noexcept { return count_; }

  // Host -> device: the first size() elements of host.
  void upload(const T *host) {
    ctx_->memcpy(ptr_, host, count_ * sizeof(T), DLK_COPY_HOST_TO_DEVICE);
  }
  // Device -> host: size() elements into host.
  void download(T *host) const {
    ctx_->memcpy(host, ptr_, count_ * sizeof(T), DLK_COPY_DEVICE_TO_HOST);
  }

 private:
  Context *ctx_ = nullptr;
  T *ptr_ = nullptr;
  size_t count_ = 0;
};

// A convolution's weights packed on a context for `passes` (dlk_conv2d_pass
// bits: dlk_conv2d_weights_create_for), destroyed with the object. The context
// must outlive it.
class Conv2dWeights {
 public:
  Conv2dWeights() = default;
  Conv2dWeights(Context &context, const dlk_conv2d_desc &desc, const void *weights,
                unsigned passes = DLK_CONV2D_PASS_FORWARD)
      : ctx_(&context) {
    check(dlk_conv2d_weights_create_for(context.get(), &desc, weights, passes, &packed_));
  }
  ~Conv2dWeights() {
    if (ctx_) dlk_conv2d_weights_destroy(ctx_->get(), packed_);
  }
  Conv2dWeights(Conv2dWeights &&other) noexcept
      : ctx_(std::exchange(other.ctx_, nullptr)), packed_(std::exchange(other.packed_, nullptr)) {}
  Conv2dWeights &operator=(Conv2dWeights &&other) noexcept {
    std::swap(ctx_, other.ctx_);
    std::swap(packed_, other.packed_);
    return *this;
  }
  Conv2dWeights(const Conv2dWeights &) = delete;
  Conv2dWeights &operator=(const Conv2dWeights &) = delete;

  dlk_conv2d_weights_t get() const noexcept { return packed_; }

 private:
  Context *ctx_ = nullptr;
  dlk_conv2d_weights_t packed_ = nullptr;
};

}  // namespace dlk
