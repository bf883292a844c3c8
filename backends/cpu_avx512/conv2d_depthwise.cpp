// Depthwise convolution forward by the direct kernels of each tier
// (kernels/depthwise_conv2d_kernels.hpp), and the rule that picks them over
// the GEMM lowering.
#include <string>

#include "backends/cpu_avx512/cpu_ops.hpp"
#include "backends/cpu_avx512/kernels/depthwise_conv2d_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {

bool depthwise_direct_applies(const core::Conv2dArgs &args) {
  const dlk_conv2d_desc &d = args.desc;
  const int64_t weights_bytes = d.k * d.kh * d.kw * int64_t{sizeof(float)};
  return d.src_type == DLK_DTYPE_F32 && d.groups == d.c &&
         (d.format == DLK_FORMAT_NCHW || weights_bytes <= static_cast<int64_t>(kScratchBound));
}

core::OpResult conv2d_forward_depthwise(const core::Conv2dArgs &args, core::CpuIsa isa,
                                        int threads, Scratch &scratch) {
  const dlk_conv2d_desc &d = args.desc;
  // NHWC runs over input channels: the weights (k x kh x kw, output channel
  // ci * multiplier + j) turned into kh x kw x multiplier x c, so that a tap's
  // weights are contiguous like its input pixel's channels.
  float *by_tap = nullptr;
  if (d.format == DLK_FORMAT_NHWC) {
    const int64_t taps = d.kh * d.kw, multiplier = d.k / d.c;
    by_tap = static_cast<float *>(scratch.get(static_cast<size_t>(d.k * taps) * sizeof(float),
                                              "dlk_conv2d_forward", "the depthwise weights"));
    const auto *weights = static_cast<const float *>(args.weights);
    parallel_for(taps, threads, [&](int64_t tap, int) {
      for (int64_t j = 0; j < multiplier; ++j)
        for (int64_t c = 0; c < d.c; ++c)
          by_tap[(tap * multiplier + j) * d.c + c] = weights[(c * multiplier + j) * taps + tap];
    });
  }
  switch (isa) {
    case core::CpuIsa::avx512: kernels::depthwise_conv2d_forward_avx512(args, by_tap, threads); break;
    case core::CpuIsa::avx2: kernels::depthwise_conv2d_forward_avx2(args, by_tap, threads); break;
    default: kernels::depthwise_conv2d_forward_generic(args, by_tap, threads);
  }
  return {std::string(core::cpu_isa_name(isa)) + ":depthwise_direct_f32", 0};
}

}  // namespace dlk::cpu
