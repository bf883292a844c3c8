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

}  // namespace dlk::cuda
