#include "layers/conv2d.hpp"

#include "layers/bf16.hpp"
#include "layers/relu.hpp"

namespace dlk_train {

Conv2d::Conv2d(const LayerSpec &spec, int64_t batch, Precision precision)
    : Layer(spec),
      precision_(precision),
      weight_(spec.name + ".weight", static_cast<size_t>(weight_elements(spec))),
      bias_(spec.name + ".bias", static_cast<size_t>(bias_elements(spec))) {
  const dlk_dtype t = precision == Precision::bf16 ? DLK_DTYPE_BF16 : DLK_DTYPE_F32;
  backward_desc_ = dlk::conv2d_desc(t, batch, spec.in.c, spec.in.h, spec.in.w, spec.out.c,
                                    spec.kernel, spec.kernel);
  backward_desc_.stride_h = backward_desc_.stride_w = spec.stride;
  backward_desc_.pad_h = backward_desc_.pad_w = spec.pad;
  backward_desc_.groups = spec.groups;
  forward_desc_ = backward_desc_;
  forward_desc_.relu = 1;
}

void Conv2d::forward(Ops &ops, const float *x, float *y) {
  if (precision_ == Precision::f32)
    return ops.conv_forward(forward_desc_, x, weight_.value.data(), bias_.value.data(), y);
  const size_t in = static_cast<size_t>(forward_desc_.n * spec().in.elements());
  const size_t out = static_cast<size_t>(forward_desc_.n * spec().out.elements());
  to_bf16(x, in, x16_);
  y16_.resize(out);
  ops.conv_forward(forward_desc_, x16_.data(), weight_.value_bf16.data(), bias_.value.data(),
                   y16_.data());
  from_bf16(y16_.data(), out, y);
}

void Conv2d::backward(Ops &ops, const float *x, const float *y, float *dy, float *dx,
                      const std::function<void()> &parameters_done) {
  const size_t out = static_cast<size_t>(backward_desc_.n * spec().out.elements());
  relu_mask(y, out, dy);
  if (precision_ == Precision::f32) {
    ops.conv_backward_weights(backward_desc_, x, dy, weight_.grad.data(), bias_.grad.data());
    parameters_done();
    if (dx) ops.conv_backward_data(backward_desc_, dy, weight_.value.data(), dx);
    return;
  }
  (void)x;  // bf16: forward's converted input, x16_, is the operand
  to_bf16(dy, out, dy16_);
  dw16_.resize(weight_.grad.size());
  ops.conv_backward_weights(backward_desc_, x16_.data(), dy16_.data(), dw16_.data(),
                            bias_.grad.data());
  from_bf16(dw16_.data(), dw16_.size(), weight_.grad.data());
  parameters_done();
  if (!dx) return;
  const size_t in = static_cast<size_t>(backward_desc_.n * spec().in.elements());
  dx16_.resize(in);
  ops.conv_backward_data(backward_desc_, dy16_.data(), weight_.value_bf16.data(), dx16_.data());
  from_bf16(dx16_.data(), in, dx);
}

}  // namespace dlk_train
