// Lowering a convolution to GEMM: the shape arithmetic, which convolutions
// need no im2col, how groups share the threads, the scratch of backward data's
// column bands, and which columns of a run of output pixels read inside
// the image. im2col (an image's receptive fields as the columns of a matrix) is
// never stored: it is packed straight into the GEMM's panels
// (conv2d_im2col_packer.hpp). col2im, its adjoint, is conv2d_col2im.hpp.
#pragma once

#include <cstdint>

#include "backends/cpu_avx512/gemm_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"
#include "backends/cpu_avx512/scratch.hpp"
#include "core/backend.hpp"

namespace dlk::cpu {

// Whether a bf16 or int8 convolution lowers to the GEMM on AMX tiles rather
// than run a direct AVX-512 kernel: where the CPU has AMX-BF16 / AMX-INT8
// (gemm_runs_bf16_on_amx), the GEMM's tiles outpace any direct kernel on
// vdpbf16ps, vpdpbusd or widened FMAs; 16 channels a group or more (below,
// im2col's panels cost more than the products: ResNet-50 conv1's bf16
// backward weights 0.77x / 0.42x NCHW / NHWC lowered, 0.99x / 0.93x oneDNN-any
// on its direct kernel). Intel Xeon model 167, ResNet-50 at batch 1, 1 thread,
// x oneDNN-any (AMX): bf16 3x3 forward 0.07-0.10x on the direct kernels,
// 0.27-0.91x lowered.
bool lowers_to_amx_gemm(const core::Conv2dArgs &args, core::CpuIsa isa);

struct ConvShape {
  explicit ConvShape(const core::Conv2dArgs &args);

  int64_t n, c, h, w, k, kh, kw;
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  int64_t groups, cg, kg;  // channels and output channels per group
  int64_t oh, ow;
  bool nhwc;

  // Taps of one output value: the rows of the im2col matrix, the GEMM's k.
  int64_t taps() const { return cg * kh * kw; }
  int64_t pixels() const { return oh * ow; }
  // Tap (ci, r, s) in the weights' order: KCRS for NCHW, KRSC for NHWC.
  int64_t tap(int64_t ci, int64_t r, int64_t s) const {
    return nhwc ? (r * kw + s) * cg + ci : (ci * kh + r) * kw + s;
  }

  // Element offsets in src (or diff_src): channel 0 of group g of image i, and
  // the distance between channels and between pixels (y * w + x).
  int64_t src_offset(int64_t image, int64_t g) const {
    return nhwc ? image * h * w * c + g * cg : (image * c + g * cg) * h * w;
  }
  int64_t src_channel_stride() const { return nhwc ? 1 : h * w; }
  int64_t src_pixel_stride() const { return nhwc ? c : 1; }
  // The same for dst (or diff_dst), pixels being oy * ow + ox.
  int64_t dst_offset(int64_t image, int64_t g) const {
    return nhwc ? image * oh * ow * k + g * kg : (image * k + g * kg) * oh * ow;
  }
  int64_t dst_channel_stride() const { return nhwc ? 1 : oh * ow; }
  int64_t dst_pixel_stride() const { return nhwc ? k : 1; }
  // An image of one group's cg channels in src's order (an f32 sum of diff_src).
  int64_t group_channel_stride() const { return nhwc ? 1 : h * w; }
  int64_t group_pixel_stride() const { return nhwc ? cg : 1; }
};

// The integer GEMM's requantizing store, for a direct int8 forward kernel that
// gives an image's bare s32 sums (the depthwise kernel; the wide-row kernel
// has a vector store of its own by the same rule): dst of that image as C (pixels x k, strides
// rs_c and cs_c), with the zero point, multipliers, bias and ReLU the GEMM
// lowering's epilogue applies, so that both paths write the same bits.
core::GemmArgs int8_forward_store(const core::Conv2dArgs &a, int64_t pixels, int64_t taps,
                                  int64_t rs_c, int64_t cs_c);

// Whether src (or diff_src) is a GEMM operand itself, a strided view: a 1x1
// kernel, stride 1, no padding, so every tap is pixel-aligned with its output.
inline bool is_pointwise(const ConvShape &s) {
  return s.kh == 1 && s.kw == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_h == 0 &&
         s.pad_w == 0;
}

// Runs gemm(g, threads) for every group, which returns the name of its kernel.
// Groups run side by side, one thread each, where each group's GEMM is too
// small to give every thread its share (kGemmMinMacsPerThread: the GEMM would
// leave threads idle) or the groups divide evenly among the threads: no
// barriers inside the GEMMs then. (ResNeXt-style 32 groups ran one thread at a
// time before.)
template <class Gemm>
const char *for_each_group(const ConvShape &s, int threads, Gemm &&gemm) {
  const int64_t macs = s.n * s.kg * s.pixels() * s.taps();
  const int team = team_size(s.groups, threads);
  const char *kernel = "";
  if (team > 1 && (s.groups % team == 0 || macs < team * kGemmMinMacsPerThread)) {
    parallel_for(s.groups, team, [&](int64_t g, int thread) {
      const char *name = gemm(g, 1);
      if (thread == 0) kernel = name;
    });
    return kernel;
  }
  for (int64_t g = 0; g < s.groups; ++g) kernel = gemm(g, threads);
  return kernel;
}

// `bytes` of the context's scratch for backward data's column bands and
// images. Throws DLK_STATUS_UNSUPPORTED naming the arguments (ow, c/groups, kh,
// kw) where they pass the bound.
void *band_scratch(Scratch &scratch, const ConvShape &s, size_t bytes, const char *call);

// Of n columns t = 0 .. n - 1 reading input column ix0 + t * stride, those
// inside [0, w) are [lo, hi). Validation bounds the padding only through the
// output size, so ix0 may lie near INT64_MIN (found by fuzz_conv2d): the
// general case (inside_clipped) works in 128 bits.
void inside_clipped(int64_t ix0, int64_t n, int64_t stride, int64_t w, int64_t &lo, int64_t &hi);
inline void inside(int64_t ix0, int64_t n, int64_t stride, int64_t w, int64_t &lo, int64_t &hi) {
  // Most runs lie wholly inside: no division (the packers call this per tap
  // and run; its 128-bit divisions were 30 % of LeNet-5 conv2's backward
  // weights).
  int64_t span;
  if (n > 0 && ix0 >= 0 && !__builtin_mul_overflow(n - 1, stride, &span) && span < w - ix0) {
    lo = 0, hi = n;
    return;
  }
  inside_clipped(ix0, n, stride, w, lo, hi);
}

// Pixels [p0, p1) of one image's NCHW f32 values (`channels` x `pixels`)
// written into its NHWC dst, each through `store`: the NHWC forward passes that
// run an NCHW kernel on staged images turn their dst back with it.
template <class Out, class Store>
void nchw_pixels_to_nhwc(const float *in, int64_t channels, int64_t pixels, int64_t p0, int64_t p1,
                         Out *out, Store store) {
  for (int64_t p = p0; p < p1; ++p)
    for (int64_t ch = 0; ch < channels; ++ch) out[p * channels + ch] = store(in[ch * pixels + p]);
}

}  // namespace dlk::cpu
