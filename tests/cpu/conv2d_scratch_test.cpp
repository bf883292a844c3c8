// Scratch is bounded (backends/cpu_avx512/scratch.hpp): a convolution whose
// im2col matrix is huge next to its tensors runs without it (forward, int8
// forward and both backward passes pack im2col panels straight into the GEMM).
// The regression: kw = pad_w = 8192 on 64 KiB of tensors used to
// grow the process by 256 MiB (an im2col band of ow x kw floats).
#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {
namespace {

// Peak resident set of the process so far, in bytes.
int64_t peak_rss() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return int64_t{usage.ru_maxrss} * 1024;
}

constexpr int64_t kKernel = 8192;

dlk_conv2d_desc wide_kernel(dlk_dtype dtype) {
  // src 1 x 1 x 1 x 1, weights 1 x 1 x 1 x 8192, dst 1 x 1 x 1 x 8193 + 1.
  dlk_conv2d_desc d;
  dlk_conv2d_desc_init(&d, dtype, 1, 1, 1, 1, 1, 1, kKernel);
  d.pad_w = kKernel;
  if (dtype == DLK_DTYPE_S8) d.dst_type = DLK_DTYPE_S32;
  return d;
}

}  // namespace

TEST_CASE("conv2d with kw = pad_w = 8192 stays within the scratch bound", "[cpu][conv2d][scratch]") {
  Context ctx;
  const dlk_conv2d_desc d = wide_kernel(DLK_DTYPE_F32);
  int64_t oh = 0, ow = 0;
  REQUIRE(dlk_conv2d_output_shape(&d, &oh, &ow) == DLK_STATUS_SUCCESS);
  REQUIRE(ow == 2 * kKernel + 1 - kKernel + 1);
  std::vector<float> weights(kKernel);
  for (int64_t s = 0; s < kKernel; ++s) weights[s] = static_cast<float>(s % 7 + 1);
  Buffer<float> src(ctx, {2.0f}), wei(ctx, weights), dst(ctx, std::vector<float>(ow, -1.0f));
  const int64_t before = peak_rss();

  // Forward writes im2col straight into the GEMM's packed panels: it runs.
  REQUIRE(dlk_conv2d_forward(ctx.get(), &d, src.data(), wei.data(), nullptr, dst.data()) ==
          DLK_STATUS_SUCCESS);
  // Output x sees the single src element through tap kKernel - x (when in range).
  const std::vector<float> out = dst.values();
  for (int64_t x = 0; x < ow; ++x) {
    const int64_t tap = kKernel - x;
    CHECK(out[x] == (tap >= 0 && tap < kKernel ? 2.0f * weights[tap] : 0.0f));
  }

  // The backward passes run without an im2col matrix too, on every tier:
  // diff_src (by the transposed lowering: col2im's band would not fit) is the
  // sum over x of diff_dst[x] * weights[kKernel - x], and diff_weights[tap] =
  // src * diff_dst[kKernel - tap] (out itself as diff_dst; small integers, so
  // the sums are exact in any order).
  float expected_src = 0.0f;
  for (int64_t x = 1; x <= kKernel; ++x) expected_src += out[x] * weights[kKernel - x];
  for (const std::string &isa : cpu_tiers()) {
    INFO(isa);
    Context tier(isa);
    Buffer<float> tsrc(tier, {2.0f}), twei(tier, weights), tdst(tier, out);
    Buffer<float> diff_src(tier, {0.0f}), diff_wei(tier, std::vector<float>(kKernel, 0.0f));
    REQUIRE(dlk_conv2d_backward_data(tier.get(), &d, tdst.data(), twei.data(), diff_src.data()) ==
            DLK_STATUS_SUCCESS);
    CHECK(diff_src.values()[0] == expected_src);
    REQUIRE(dlk_conv2d_backward_weights(tier.get(), &d, tsrc.data(), tdst.data(), diff_wei.data(),
                                        nullptr) == DLK_STATUS_SUCCESS);
    const std::vector<float> grad = diff_wei.values();
    int64_t wrong = 0;
    for (int64_t tap = 0; tap < kKernel; ++tap) wrong += grad[tap] != 2.0f * out[kKernel - tap];
    CHECK(wrong == 0);
  }

  // int8 forward writes im2col^T straight into the integer GEMM's packed A
  // panels: it runs too, on every tier, the zero point's padding adding nothing.
  dlk_conv2d_desc q = wide_kernel(DLK_DTYPE_S8);
  q.src_zero_point = -5;
  std::vector<int8_t> qweights(weights.begin(), weights.end());
  for (const std::string &isa : cpu_tiers()) {
    INFO(isa);
    Context tier(isa);
    Buffer<int8_t> qsrc(tier, {3}), qwei(tier, qweights);
    Buffer<int32_t> qdst(tier, std::vector<int32_t>(ow, -1));
    REQUIRE(dlk_conv2d_forward(tier.get(), &q, qsrc.data(), qwei.data(), nullptr, qdst.data()) ==
            DLK_STATUS_SUCCESS);
    const std::vector<int32_t> qout = qdst.values();
    int64_t wrong = 0;
    for (int64_t x = 0; x < ow; ++x) {
      const int64_t tap = kKernel - x;
      wrong += qout[x] != (tap >= 0 && tap < kKernel ? 8 * qweights[tap] : 0);
    }
    CHECK(wrong == 0);
  }

  // Before the bound, forward alone grew the peak by 256 MiB.
  CHECK(peak_rss() - before < (int64_t{96} << 20));
}

}  // namespace dlk::cpu_test
