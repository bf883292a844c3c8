#include "backends/cpu_avx512/conv2d_lowering.hpp"

#include <algorithm>
#include <string>

#include "backends/cpu_avx512/gemm_driver.hpp"

namespace dlk::cpu {

bool lowers_to_amx_gemm(const core::Conv2dArgs &args, core::CpuIsa isa) {
  const dlk_dtype type = args.desc.src_type;
  const bool int8 = type == DLK_DTYPE_U8 || type == DLK_DTYPE_S8;
  return ((type == DLK_DTYPE_BF16 && gemm_runs_bf16_on_amx(isa)) ||
          (int8 && gemm_runs_int8_on_amx(isa))) &&
         args.desc.c / args.desc.groups >= 16;
}
ConvShape::ConvShape(const core::Conv2dArgs &a)
    : n(a.desc.n), c(a.desc.c), h(a.desc.h), w(a.desc.w), k(a.desc.k), kh(a.desc.kh),
      kw(a.desc.kw), stride_h(a.desc.stride_h), stride_w(a.desc.stride_w), pad_h(a.desc.pad_h),
      pad_w(a.desc.pad_w), dilation_h(a.desc.dilation_h), dilation_w(a.desc.dilation_w),
      groups(a.desc.groups), cg(a.c_per_group), kg(a.k_per_group), oh(a.oh), ow(a.ow),
      nhwc(a.desc.format == DLK_FORMAT_NHWC) {}

void *band_scratch(Scratch &scratch, const ConvShape &s, size_t bytes, const char *call) {
  const auto arg = [](const char *name, int64_t v) {
    return std::string(name) + " (" + std::to_string(v) + ")";
  };
  return scratch.get(bytes, call,
                     "the im2col band of one output row, " + arg("ow", s.ow) + " pixels x " +
                         arg("c/groups", s.cg) + " x " + arg("kh", s.kh) + " x " + arg("kw", s.kw) +
                         " taps,");
}

void inside_clipped(int64_t ix0, int64_t n, int64_t stride, int64_t w, int64_t &lo,
                    int64_t &hi) {
  constexpr int64_t kSmall = int64_t{1} << 60;
  if (ix0 > -kSmall && ix0 < kSmall && stride < kSmall) {  // no overflow in 64 bits
    const int64_t l = ix0 >= 0 ? 0 : (-ix0 + stride - 1) / stride;
    const int64_t h = ix0 >= w ? 0 : (w - 1 - ix0) / stride + 1;
    lo = std::min(l, n);
    hi = std::clamp(h, lo, n);
    return;
  }
  using Wide = __int128;
  const Wide l = ix0 >= 0 ? 0 : (-Wide{ix0} + stride - 1) / stride;
  const Wide h = ix0 >= w ? 0 : (Wide{w} - 1 - ix0) / stride + 1;
  lo = static_cast<int64_t>(std::min<Wide>(l, n));
  hi = static_cast<int64_t>(std::clamp<Wide>(h, lo, n));
}

core::GemmArgs int8_forward_store(const core::Conv2dArgs &a, int64_t pixels, int64_t taps,
                                  int64_t rs_c, int64_t cs_c) {
  const dlk_conv2d_desc &d = a.desc;
  core::GemmArgs store = single_gemm(pixels, d.k, taps, {}, {}, nullptr, d.dst_type, rs_c, cs_c);
  store.a.dtype = d.src_type, store.b.dtype = DLK_DTYPE_S8;
  store.c_zero_point = d.dst_zero_point;
  store.column_multipliers = a.channel_multipliers;
  store.multiplier = a.multiplier;
  store.bias = a.bias;
  store.bias_per_row = false;
  store.relu = d.relu != 0;
  return store;
}

}  // namespace dlk::cpu
