#include "layers/linear.hpp"

#include <algorithm>

#include "layers/bf16.hpp"

namespace dlk_train {

Linear::Linear(const LayerSpec &spec, int64_t batch, Precision precision)
    : Layer(spec),
      batch_(batch),
      in_(spec.in.elements()),
      out_(spec.out.elements()),
      precision_(precision),
      weight_(spec.name + ".weight", static_cast<size_t>(weight_elements(spec))),
      bias_(spec.name + ".bias", static_cast<size_t>(bias_elements(spec))),
      ones_(static_cast<size_t>(batch), 1.0f) {}

void Linear::forward(Ops &ops, const float *x, float *y) {
  for (int64_t i = 0; i < batch_; ++i) std::copy(bias_.value.begin(), bias_.value.end(), y + i * out_);
  const bool low = precision_ == Precision::bf16;
  const dlk_dtype t = low ? DLK_DTYPE_BF16 : DLK_DTYPE_F32;
  dlk_gemm_desc d = dlk::gemm_desc(t, t, DLK_DTYPE_F32, batch_, out_, in_);  // x (n x in) W^T
  d.trans_b = DLK_TRANSPOSE;
  d.ldb = in_;
  d.beta = 1.0f;
  if (!low) return ops.gemm(d, x, weight_.value.data(), y);
  to_bf16(x, static_cast<size_t>(batch_ * in_), x16_);
  ops.gemm(d, x16_.data(), weight_.value_bf16.data(), y);
}

void Linear::backward(Ops &ops, const float *x, const float *, float *dy, float *dx,
                      const std::function<void()> &parameters_done) {
  const bool low = precision_ == Precision::bf16;
  const dlk_dtype t = low ? DLK_DTYPE_BF16 : DLK_DTYPE_F32;
  if (low) to_bf16(dy, static_cast<size_t>(batch_ * out_), dy16_);
  const void *dy_op = low ? static_cast<const void *>(dy16_.data()) : dy;
  const void *x_op = low ? static_cast<const void *>(x16_.data()) : x;

  dlk_gemm_desc dw = dlk::gemm_desc(t, t, DLK_DTYPE_F32, out_, in_, batch_);  // dy^T x
  dw.trans_a = DLK_TRANSPOSE;
  dw.lda = out_;
  ops.gemm(dw, dy_op, x_op, weight_.grad.data());

  // The bias gradient sums dy's rows: in f32 in both precisions (it is small).
  const dlk_gemm_desc db = dlk::gemm_desc(DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 1, out_, batch_);
  ops.gemm(db, ones_.data(), dy, bias_.grad.data());
  parameters_done();

  if (!dx) return;
  const dlk_gemm_desc dd = dlk::gemm_desc(t, t, DLK_DTYPE_F32, batch_, in_, out_);  // dy W
  ops.gemm(dd, dy_op, low ? static_cast<const void *>(weight_.value_bf16.data())
                          : weight_.value.data(),
           dx);
}

}  // namespace dlk_train
