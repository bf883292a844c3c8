// The AVX-512 packing kernel that widens bf16 into f32 micro-panels
// (kernels/gemm_pack_kernels.hpp, pack_bf16_as_f32_avx512), called directly:
// the GEMM reaches it only where the CPU's vdpbf16ps is slower than its FMAs
// (Intel's cores), so the conformance suite covers it on those alone. Both
// source orientations, rows one below and above a vector and the 14- and
// 32-wide panels, k steps around a transpose block; the bits compared exactly,
// zeros in the rows past the source, nothing written past the panel.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "backends/cpu_avx512/kernels/gemm_pack_kernels.hpp"

namespace dlk::cpu_test {
namespace {

uint32_t widened(uint16_t v) { return uint32_t{v} << 16; }

}  // namespace

TEST_CASE("gemm packing: bf16 widened into f32 panels, both orientations", "[cpu][gemm]") {
  if (!__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vl")) {
    WARN("skipped: the CPU has no AVX-512 BW and VL, which the kernel needs");
    return;
  }
  std::mt19937 rng(7);
  for (const int width : {14, 32})
    for (const int rows : {1, 13, 14, 15, 16, 17, 31, 32})
      for (const int64_t kc : {1, 15, 16, 17, 40})
        for (const bool k_contiguous : {true, false}) {
          if (rows > width) continue;
          INFO("width " << width << " rows " << rows << " kc " << kc << " k_contiguous "
                        << k_contiguous);
          // Strides with a gap, so a read past a row or line would pick up the gap's bits.
          const int64_t outer = k_contiguous ? kc + 3 : 1, inner = k_contiguous ? 1 : rows + 5;
          std::vector<uint16_t> src(static_cast<size_t>(rows * outer + kc * inner + 8));
          for (uint16_t &v : src) v = static_cast<uint16_t>(rng());
          const size_t panel = static_cast<size_t>(kc * width);
          std::vector<uint32_t> out(panel + 16, 0xdeadbeefu);
          cpu::kernels::pack_bf16_as_f32_avx512(src.data(), outer, inner, rows, kc, width,
                                                reinterpret_cast<float *>(out.data()));
          for (int64_t p = 0; p < kc; ++p)
            for (int t = 0; t < width; ++t) {
              const uint32_t want = t < rows ? widened(src[t * outer + p * inner]) : 0u;
              REQUIRE(out[p * width + t] == want);
            }
          for (size_t i = panel; i < out.size(); ++i) REQUIRE(out[i] == 0xdeadbeefu);
        }
}

}  // namespace dlk::cpu_test
