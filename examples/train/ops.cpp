#include "ops.hpp"

#include <cstring>

namespace dlk_train {

namespace {

dlk_context_options make_options(const std::string &backend, int threads) {
  dlk_context_options o = dlk::context_options();
  o.backend = backend.c_str();  // read by dlk_context_create only
  o.num_threads = threads;
  return o;
}

size_t conv_src_bytes(const dlk_conv2d_desc &d) {
  return static_cast<size_t>(d.n * d.c * d.h * d.w) * dlk_dtype_size(d.src_type);
}
size_t conv_weights_bytes(const dlk_conv2d_desc &d) {
  return static_cast<size_t>(d.k * (d.c / d.groups) * d.kh * d.kw) *
         dlk_dtype_size(d.weights_type);
}
size_t conv_dst_bytes(const dlk_conv2d_desc &d) {
  const auto [oh, ow] = dlk::output_shape(d);
  return static_cast<size_t>(d.n * d.k * oh * ow) * dlk_dtype_size(d.dst_type);
}
size_t pool_src_elements(const dlk_pool2d_desc &d) {
  return static_cast<size_t>(d.n * d.c * d.h * d.w);
}
size_t pool_dst_elements(const dlk_pool2d_desc &d) {
  const auto [oh, ow] = dlk::output_shape(d);
  return static_cast<size_t>(d.n * d.c * oh * ow);
}
// Bytes of a row-major rows x cols matrix with leading dimension ld (one matrix).
size_t matrix_bytes(int64_t rows, int64_t ld, dlk_dtype t) {
  return static_cast<size_t>(rows * ld) * dlk_dtype_size(t);
}

}  // namespace

Ops::Ops(const std::string &backend, int threads, bool stage_operands)
    : context_(make_options(backend, threads)), info_(context_.info()) {
  staged_ = stage_operands || std::strcmp(info_.backend, "cuda") == 0;
  simulated_ = std::strcmp(info_.backend, "fpga_sim") == 0;
}

void *Ops::device(size_t slot, size_t bytes) {
  if (scratch_[slot].size() < bytes) scratch_[slot] = dlk::Buffer<unsigned char>(context_, bytes);
  return scratch_[slot].get();
}

void *Ops::upload(size_t slot, const void *host, size_t bytes) {
  void *d = device(slot, bytes);
  if (bytes) context_.memcpy(d, host, bytes, DLK_COPY_HOST_TO_DEVICE);
  return d;
}

void Ops::download(void *host, size_t slot, size_t bytes) {
  if (bytes) context_.memcpy(host, scratch_[slot].get(), bytes, DLK_COPY_DEVICE_TO_HOST);
}

void Ops::after_op() {
  if (simulated_) sim_seconds_ += context_.last_sim().seconds;
}

double Ops::take_sim_seconds() {
  const double s = sim_seconds_;
  sim_seconds_ = 0;
  return s;
}

void Ops::gemm(const dlk_gemm_desc &d, const void *a, const void *b, void *c) {
  if (!staged_) {
    context_.gemm(d, a, b, c);
    return after_op();
  }
  const size_t a_bytes = matrix_bytes(d.trans_a ? d.k : d.m, d.lda, d.a_type);
  const size_t b_bytes = matrix_bytes(d.trans_b ? d.n : d.k, d.ldb, d.b_type);
  const size_t c_bytes = matrix_bytes(d.m, d.ldc, d.c_type);
  void *dc = d.beta != 0.0f ? upload(2, c, c_bytes) : device(2, c_bytes);
  context_.gemm(d, upload(0, a, a_bytes), upload(1, b, b_bytes), dc);
  download(c, 2, c_bytes);
}

void Ops::conv_forward(const dlk_conv2d_desc &d, const void *src, const void *weights,
                       const float *bias, void *dst) {
  if (!staged_) {
    context_.conv2d_forward(d, src, weights, bias, dst);
    return after_op();
  }
  const size_t dst_bytes = conv_dst_bytes(d);
  const float *dbias =
      bias ? static_cast<const float *>(upload(3, bias, static_cast<size_t>(d.k) * 4)) : nullptr;
  context_.conv2d_forward(d, upload(0, src, conv_src_bytes(d)),
                          upload(1, weights, conv_weights_bytes(d)), dbias, device(2, dst_bytes));
  download(dst, 2, dst_bytes);
}

void Ops::conv_backward_data(const dlk_conv2d_desc &d, const void *diff_dst, const void *weights,
                             void *diff_src) {
  if (!staged_) {
    context_.conv2d_backward_data(d, diff_dst, weights, diff_src);
    return after_op();
  }
  const size_t src_bytes = conv_src_bytes(d);
  context_.conv2d_backward_data(d, upload(0, diff_dst, conv_dst_bytes(d)),
                                upload(1, weights, conv_weights_bytes(d)), device(2, src_bytes));
  download(diff_src, 2, src_bytes);
}

void Ops::conv_backward_weights(const dlk_conv2d_desc &d, const void *src, const void *diff_dst,
                                void *diff_weights, float *diff_bias) {
  if (!staged_) {
    context_.conv2d_backward_weights(d, src, diff_dst, diff_weights, diff_bias);
    return after_op();
  }
  const size_t w_bytes = conv_weights_bytes(d), b_bytes = static_cast<size_t>(d.k) * 4;
  context_.conv2d_backward_weights(d, upload(0, src, conv_src_bytes(d)),
                                   upload(1, diff_dst, conv_dst_bytes(d)), device(2, w_bytes),
                                   diff_bias ? static_cast<float *>(device(3, b_bytes)) : nullptr);
  download(diff_weights, 2, w_bytes);
  if (diff_bias) download(diff_bias, 3, b_bytes);
}

void Ops::pool_forward(const dlk_pool2d_desc &d, const void *src, void *dst, int32_t *argmax) {
  if (!staged_) {
    context_.pool2d_forward(d, src, dst, argmax);
    return after_op();
  }
  const size_t e = dlk_dtype_size(d.dtype), out = pool_dst_elements(d);
  context_.pool2d_forward(d, upload(0, src, pool_src_elements(d) * e), device(1, out * e),
                          argmax ? static_cast<int32_t *>(device(2, out * 4)) : nullptr);
  download(dst, 1, out * e);
  if (argmax) download(argmax, 2, out * 4);
}

void Ops::pool_backward(const dlk_pool2d_desc &d, const void *diff_dst, const int32_t *argmax,
                        void *diff_src) {
  if (!staged_) {
    context_.pool2d_backward(d, diff_dst, argmax, diff_src);
    return after_op();
  }
  const size_t e = dlk_dtype_size(d.dtype), out = pool_dst_elements(d);
  const size_t in = pool_src_elements(d) * e;
  context_.pool2d_backward(d, upload(0, diff_dst, out * e),
                           argmax ? static_cast<const int32_t *>(upload(1, argmax, out * 4))
                                  : nullptr,
                           device(2, in));
  download(diff_src, 2, in);
}

}  // namespace dlk_train
