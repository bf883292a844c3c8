// The avx512 depthwise tier: the loops of depthwise_conv2d_tier.inc built for avx512.
#include "backends/cpu_avx512/kernels/depthwise_conv2d_tier.inc"

namespace dlk::cpu::kernels {

void depthwise_conv2d_forward_avx512(const core::Conv2dArgs &args, const float *weights_by_tap,
                                     int threads) {
  forward(args, weights_by_tap, threads);
}

}  // namespace dlk::cpu::kernels
