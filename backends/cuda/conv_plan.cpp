#include "backends/cuda/conv_plan.hpp"

#include <array>
#include <climits>
#include <functional>
#include <initializer_list>

namespace dlk::cuda {

ConvMath conv_math(dlk_dtype dtype, bool allow_tf32) {
  if (dtype != DLK_DTYPE_F32) return ConvMath::tensor_op;
  return allow_tf32 ? ConvMath::tf32_allowed : ConvMath::fma;
}

bool cudnn_conv_shape(const core::Conv2dArgs &a, CudnnConvShape &s, const char *&why_not) {
  const dlk_conv2d_desc &d = a.desc;
  for (int64_t v : {d.n, d.c, d.h, d.w, d.k, d.kh, d.kw, a.oh, a.ow, d.pad_h, d.pad_w, d.stride_h,
                    d.stride_w, d.dilation_h, d.dilation_w, d.groups, d.n * d.c * d.h * d.w,
                    d.n * d.k * a.oh * a.ow, d.k * a.c_per_group * d.kh * d.kw}) {
    if (v > INT_MAX) {
      why_not = "a size or element count above 2^31-1 does not fit cuDNN's int dimensions";
      return false;
    }
  }
  s.nhwc = d.format == DLK_FORMAT_NHWC;
  s.n = int(d.n), s.c = int(d.c), s.h = int(d.h), s.w = int(d.w);
  s.k = int(d.k), s.c_per_group = int(a.c_per_group), s.kh = int(d.kh), s.kw = int(d.kw);
  s.oh = int(a.oh), s.ow = int(a.ow);
  s.pad_h = int(d.pad_h), s.pad_w = int(d.pad_w);
  s.stride_h = int(d.stride_h), s.stride_w = int(d.stride_w);
  s.dilation_h = int(d.dilation_h), s.dilation_w = int(d.dilation_w);
  s.groups = int(d.groups);
  return true;
}

namespace {

std::array<int, 18> fields(const CudnnConvShape &s) {
  return {s.nhwc, s.n, s.c, s.h, s.w, s.k, s.c_per_group, s.kh, s.kw, s.oh, s.ow, s.pad_h,
          s.pad_w, s.stride_h, s.stride_w, s.dilation_h, s.dilation_w, s.groups};
}

}  // namespace

bool ConvKey::operator==(const ConvKey &o) const {
  if (direction != o.direction || dtype != o.dtype || math != o.math) return false;
  return fields(shape) == fields(o.shape);
}

size_t ConvKeyHash::operator()(const ConvKey &key) const {
  size_t h = std::hash<int>{}(int(key.direction) * 64 + int(key.dtype) * 4 + int(key.math));
  for (int v : fields(key.shape)) h ^= std::hash<int>{}(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

core::GemmArgs im2col_gemm_args(const core::Conv2dArgs &a, int64_t image, const void *col, void *out,
                                dlk_dtype out_type) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t pixels = a.oh * a.ow, taps = d.kh * d.kw * a.c_per_group, kpg = a.k_per_group;
  const size_t element = out_type == DLK_DTYPE_F32 ? 4 : 2;
  core::GemmArgs g;
  g.batch = d.groups;
  g.c_type = out_type;
  g.alpha = 1.0f, g.beta = 0.0f;
  core::MatrixView weights{a.weights, d.weights_type, 0, 0, kpg * taps};
  core::MatrixView columns{col, d.src_type, 0, 0, taps * pixels};
  if (d.format == DLK_FORMAT_NCHW) {
    // dst[k_g][p] (kpg x pixels) = W_g (kpg x taps) * col_g (taps x pixels).
    g.m = kpg, g.n = pixels, g.k = taps;
    weights.rs = taps, weights.cs = 1;
    columns.rs = pixels, columns.cs = 1;
    g.a = weights, g.b = columns;
    g.c = static_cast<char *>(out) + static_cast<size_t>(image * d.k * pixels) * element;
    g.rs_c = pixels, g.cs_c = 1, g.batch_stride_c = kpg * pixels;
  } else {
    // dst[p][k_g] (pixels x kpg, row stride k) = col_g (pixels x taps) * W_g^T (taps x kpg).
    g.m = pixels, g.n = kpg, g.k = taps;
    columns.rs = taps, columns.cs = 1;
    weights.rs = 1, weights.cs = taps;
    g.a = columns, g.b = weights;
    g.c = static_cast<char *>(out) + static_cast<size_t>(image * pixels * d.k) * element;
    g.rs_c = d.k, g.cs_c = 1, g.batch_stride_c = kpg;
  }
  return g;
}

}  // namespace dlk::cuda
