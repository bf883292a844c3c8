#include "layers/max_pool.hpp"

namespace dlk_train {

MaxPool::MaxPool(const LayerSpec &spec, int64_t batch)
    : Layer(spec),
      desc_(dlk::pool2d_desc(DLK_POOL_MAX, DLK_DTYPE_F32, batch, spec.in.c, spec.in.h, spec.in.w,
                             spec.kernel, spec.kernel)),
      argmax_(static_cast<size_t>(batch * spec.out.elements())) {
  desc_.stride_h = desc_.stride_w = spec.stride;
  desc_.pad_h = desc_.pad_w = spec.pad;
}

void MaxPool::forward(Ops &ops, const float *x, float *y) {
  ops.pool_forward(desc_, x, y, argmax_.data());
}

void MaxPool::backward(Ops &ops, const float *, const float *, float *dy, float *dx,
                       const std::function<void()> &) {
  if (dx) ops.pool_backward(desc_, dy, argmax_.data(), dx);
}

}  // namespace dlk_train
