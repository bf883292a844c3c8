// backends/cuda/conv_plan.cpp: the numbers cuDNN's descriptors get from a dlk
// convolution, its math mode (TF32 only on opt-in), and the algorithm-cache key.
#include <catch2/catch.hpp>

#include <climits>

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
