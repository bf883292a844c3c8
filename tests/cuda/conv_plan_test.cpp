// backends/cuda/conv_plan.cpp: the numbers cuDNN's descriptors get from a dlk
// convolution, its math mode (TF32 only on opt-in), and the algorithm-cache key.
#include <catch2/catch.hpp>

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/cuda/conv_plan.hpp"

using namespace dlk;
using dlk::cuda::ConvMath;

namespace {

core::Conv2dArgs args_of(dlk_format format) {
  core::Conv2dArgs a;
  dlk_conv2d_desc &d = a.desc;
  d.format = format;
  d.n = 2, d.c = 6, d.h = 9, d.w = 7, d.k = 4, d.kh = 3, d.kw = 2;
  d.stride_h = 2, d.stride_w = 1, d.pad_h = 1, d.pad_w = 0, d.dilation_h = 2, d.dilation_w = 1;
  d.groups = 2;
  d.src_type = d.weights_type = d.dst_type = DLK_DTYPE_F16;
  a.oh = (9 + 2 - 2 * 2 - 1) / 2 + 1, a.ow = 6;
  a.c_per_group = 3, a.k_per_group = 2;
  return a;
}

}  // namespace

TEST_CASE("conv plan: cuDNN's descriptor numbers, NCHW and NHWC", "[cuda][conv_plan]") {
  for (dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC}) {
    cuda::CudnnConvShape s;
    const char *why = nullptr;
    REQUIRE(cuda::cudnn_conv_shape(args_of(format), s, why));
    CHECK(s.nhwc == (format == DLK_FORMAT_NHWC));
    CHECK((s.n == 2 && s.c == 6 && s.h == 9 && s.w == 7));
    CHECK((s.k == 4 && s.c_per_group == 3 && s.kh == 3 && s.kw == 2));
    CHECK((s.oh == 4 && s.ow == 6));
    CHECK((s.pad_h == 1 && s.pad_w == 0 && s.stride_h == 2 && s.stride_w == 1));
    CHECK((s.dilation_h == 2 && s.dilation_w == 1 && s.groups == 2));
  }
}

TEST_CASE("conv plan: sizes past cuDNN's int are refused, saying why", "[cuda][conv_plan]") {
  auto a = args_of(DLK_FORMAT_NCHW);
  a.desc.n = int64_t{INT_MAX} / 10;  // n * c * h * w overflows int
  cuda::CudnnConvShape s;
  const char *why = nullptr;
  CHECK_FALSE(cuda::cudnn_conv_shape(a, s, why));
  REQUIRE(why != nullptr);
  CHECK_THAT(std::string(why), Catch::Contains("2^31-1"));
}

TEST_CASE("conv plan: f32 uses FMA math unless TF32 is allowed; f16/bf16 tensor cores", "[cuda][conv_plan]") {
  CHECK(cuda::conv_math(DLK_DTYPE_F32, false) == ConvMath::fma);
  CHECK(cuda::conv_math(DLK_DTYPE_F32, true) == ConvMath::tf32_allowed);
  CHECK(cuda::conv_math(DLK_DTYPE_F16, false) == ConvMath::tensor_op);
  CHECK(cuda::conv_math(DLK_DTYPE_BF16, true) == ConvMath::tensor_op);
}

TEST_CASE("conv plan: the algorithm-cache key tells directions, types, math and shapes apart",
          "[cuda][conv_plan]") {
  const auto key = [](const core::Conv2dArgs &a, cuda::ConvDirection dir, ConvMath math = ConvMath::tensor_op) {
    cuda::ConvKey k;
    k.direction = dir;
    k.dtype = a.desc.src_type;
    k.math = math;
    const char *why = nullptr;
    REQUIRE(cuda::cudnn_conv_shape(a, k.shape, why));
    return k;
  };
  const auto a = args_of(DLK_FORMAT_NCHW);
  const cuda::ConvKey base = key(a, cuda::ConvDirection::forward);
  CHECK(base == key(a, cuda::ConvDirection::forward));
  CHECK(cuda::ConvKeyHash{}(base) == cuda::ConvKeyHash{}(key(a, cuda::ConvDirection::forward)));
  CHECK_FALSE(base == key(a, cuda::ConvDirection::backward_data));
  CHECK_FALSE(base == key(a, cuda::ConvDirection::forward, ConvMath::fma));
  CHECK_FALSE(base == key(args_of(DLK_FORMAT_NHWC), cuda::ConvDirection::forward));
  auto other = a;
  other.desc.dilation_w = 2;
  CHECK_FALSE(base == key(other, cuda::ConvDirection::forward));
  other = a;
  other.desc.src_type = DLK_DTYPE_BF16;
  CHECK_FALSE(base == key(other, cuda::ConvDirection::forward));
}

namespace {

// The column matrix of one image as launch_im2col lays it out (conv_kernels.cu),
// and a plain strided-batch GEMM on the host following GemmArgs' views: together
// they must give the direct convolution.
std::vector<double> im2col_host(const core::Conv2dArgs &a, const std::vector<double> &src, int64_t image) {
  const dlk_conv2d_desc &d = a.desc;
  const int64_t pixels = a.oh * a.ow, taps = d.kh * d.kw * a.c_per_group;
  std::vector<double> col(static_cast<size_t>(d.groups * taps * pixels));
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  for (int64_t g = 0; g < d.groups; ++g)
    for (int64_t p = 0; p < pixels; ++p)
      for (int64_t tap = 0; tap < taps; ++tap) {
        const int64_t c = nhwc ? tap % a.c_per_group : tap / (d.kh * d.kw);
        const int64_t rs = nhwc ? tap / a.c_per_group : tap % (d.kh * d.kw);
        const int64_t y = p / a.ow * d.stride_h - d.pad_h + rs / d.kw * d.dilation_h;
        const int64_t x = p % a.ow * d.stride_w - d.pad_w + rs % d.kw * d.dilation_w;
        const int64_t ch = g * a.c_per_group + c;
        double v = 0;
        if (y >= 0 && y < d.h && x >= 0 && x < d.w)
          v = src[size_t(image * d.c * d.h * d.w + (nhwc ? (y * d.w + x) * d.c + ch : (ch * d.h + y) * d.w + x))];
        col[size_t(g * taps * pixels + (nhwc ? p * taps + tap : tap * pixels + p))] = v;
      }
  return col;
}

// GemmArgs' views applied to host vectors (its pointers are ignored; C starts at
// c_offset elements).
void host_gemm(const core::GemmArgs &g, const std::vector<double> &a, const std::vector<double> &b,
               std::vector<double> &c, int64_t c_offset) {
  for (int64_t batch = 0; batch < g.batch; ++batch)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double sum = 0;
        for (int64_t kk = 0; kk < g.k; ++kk)
          sum += a[size_t(batch * g.a.batch_stride + i * g.a.rs + kk * g.a.cs)] *
                 b[size_t(batch * g.b.batch_stride + kk * g.b.rs + j * g.b.cs)];
        c[size_t(c_offset + batch * g.batch_stride_c + i * g.rs_c + j * g.cs_c)] = sum;
      }
}

}  // namespace

TEST_CASE("conv plan: im2col's GEMM views reproduce the direct convolution, NCHW and NHWC, groups",
          "[cuda][conv_plan]") {
  for (dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC}) {
    INFO((format == DLK_FORMAT_NCHW ? "NCHW" : "NHWC"));
    core::Conv2dArgs a = args_of(format);
    a.desc.src_type = a.desc.weights_type = a.desc.dst_type = DLK_DTYPE_F32;
    const dlk_conv2d_desc &d = a.desc;
    const bool nhwc = format == DLK_FORMAT_NHWC;
    std::vector<double> src(size_t(d.n * d.c * d.h * d.w)), weights(size_t(d.k * a.c_per_group * d.kh * d.kw));
    for (size_t i = 0; i < src.size(); ++i) src[i] = double(int(i * 7 % 13) - 6);
    for (size_t i = 0; i < weights.size(); ++i) weights[i] = double(int(i * 5 % 11) - 5);
    // Direct convolution from dlk.h's definition.
    std::vector<double> expected(size_t(d.n * d.k * a.oh * a.ow));
    for (int64_t n = 0; n < d.n; ++n)
      for (int64_t k = 0; k < d.k; ++k)
        for (int64_t oy = 0; oy < a.oh; ++oy)
          for (int64_t ox = 0; ox < a.ow; ++ox) {
            double sum = 0;
            const int64_t g = k / a.k_per_group;
            for (int64_t c = 0; c < a.c_per_group; ++c)
              for (int64_t r = 0; r < d.kh; ++r)
                for (int64_t s = 0; s < d.kw; ++s) {
                  const int64_t y = oy * d.stride_h - d.pad_h + r * d.dilation_h;
                  const int64_t x = ox * d.stride_w - d.pad_w + s * d.dilation_w;
                  if (y < 0 || y >= d.h || x < 0 || x >= d.w) continue;
                  const int64_t ch = g * a.c_per_group + c;
                  const double in =
                      src[size_t(n * d.c * d.h * d.w + (nhwc ? (y * d.w + x) * d.c + ch : (ch * d.h + y) * d.w + x))];
                  const double wt = weights[size_t(nhwc ? ((k * d.kh + r) * d.kw + s) * a.c_per_group + c
                                                        : ((k * a.c_per_group + c) * d.kh + r) * d.kw + s)];
                  sum += in * wt;
                }
            const int64_t pixel = oy * a.ow + ox;
            expected[size_t(n * d.k * a.oh * a.ow + (nhwc ? pixel * d.k + k : k * a.oh * a.ow + pixel))] = sum;
          }
    std::vector<double> got(expected.size(), -999);
    // dst at a made-up address: only offsets from it matter (host_gemm takes vectors).
    const uintptr_t dst_base = 0x100000;
    a.dst = reinterpret_cast<void *>(dst_base);
    for (int64_t n = 0; n < d.n; ++n) {
      const std::vector<double> col = im2col_host(a, src, n);
      const core::GemmArgs g = cuda::im2col_gemm_args(a, n, col.data(), a.dst, a.desc.dst_type);
      const auto c_offset = static_cast<int64_t>(reinterpret_cast<uintptr_t>(g.c) - dst_base) / 4;  // f32
      const bool weights_are_a = format == DLK_FORMAT_NCHW;
      host_gemm(g, weights_are_a ? weights : col, weights_are_a ? col : weights, got, c_offset);
    }
    CHECK(got == expected);
  }
}
