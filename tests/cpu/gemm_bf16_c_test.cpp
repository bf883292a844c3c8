// A bf16 C of contiguous rows and beta 0 is rounded in the micro-kernel's
// store (gemm_driver.cpp, rounds_in_tile); with AVX512_BF16 two vectors at a
// time by vcvtne2ps2bf16, which flushes denormals to zero, so a row holding
// one goes the lane-by-lane way (kernels/bf16_round_avx512.inc). Every tier
// must give core::f32_to_bf16 of the f32 result: denormal results with ties
// among them, normal ones in the same rows and tiles, a NaN row. alpha =
// 2^-125 scales exact integer sums s into s 2^-135 (rows of A scaled by
// 2^(10 (i % 3)), columns of B by 2^12 where j % 5 == 0): f32 holds each
// exactly, bf16's denormal step is 2^-133, so s = 2 mod 4 is a tie. Shapes:
// tiles of 14, 14 and 2 rows, 32, 32 and 6 columns; k over one and two k
// blocks (the second adds the first's f32 sums); 1 and 2 threads.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {

TEST_CASE("gemm: bf16 C rounded in the store, denormal, tie, normal and NaN lanes, every tier",
          "[cpu][gemm]") {
  constexpr int64_t m = 30, n = 70;
  const float alpha = std::ldexp(1.0f, -125);
  std::mt19937 rng(26);
  for (const int64_t k : {40, 1100}) {
    const std::vector<int> a_ints = random_ints(m * k, -3, 3, rng);
    const std::vector<int> b_ints = random_ints(k * n, -3, 3, rng);
    std::vector<float> a(m * k), b(k * n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p)
        a[i * k + p] = std::ldexp(float(a_ints[i * k + p]), -10 + 10 * int(i % 3));
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j)
        b[p * n + j] = std::ldexp(float(b_ints[p * n + j]), j % 5 == 0 ? 12 : 0);
    std::vector<uint16_t> a16(a.size()), b16(b.size());
    for (size_t e = 0; e < a.size(); ++e) a16[e] = bf16_bits(a[e]);
    for (size_t e = 0; e < b.size(); ++e) b16[e] = bf16_bits(b[e]);
    constexpr int64_t nan_row = 4;
    a16[nan_row * k + 1] = 0x7FC1;
    std::vector<uint16_t> expected(m * n);
    int64_t denormals = 0, ties = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) sum += double(a[i * k + p]) * b[p * n + j];
        const float x = static_cast<float>(sum * alpha);  // exact
        expected[i * n + j] = bf16_bits(x);
        denormals += x != 0 && std::fabs(x) < std::ldexp(1.0f, -126);
        ties += std::fabs(x) < std::ldexp(1.0f, -126) &&
                std::fmod(std::fabs(double(x)) / std::ldexp(1.0, -135), 4.0) == 2.0;
      }
    REQUIRE(denormals > m * n / 4);
    REQUIRE(ties > 20);
    for (const std::string &isa : cpu_tiers())
      for (const int threads : {1, 2}) {
        INFO(isa << " k " << k << " threads " << threads);
        Context ctx(isa, threads);
        dlk_gemm_desc d;
        dlk_gemm_desc_init(&d, DLK_DTYPE_BF16, DLK_DTYPE_BF16, DLK_DTYPE_BF16, m, n, k);
        d.alpha = alpha;
        d.beta = 0.0f;
        Buffer<uint16_t> da(ctx, a16), db(ctx, b16);
        Buffer<uint16_t> dc(ctx, std::vector<uint16_t>(m * n, 0x1234));
        REQUIRE(dlk_gemm(ctx.get(), &d, da.data(), db.data(), dc.data()) == DLK_STATUS_SUCCESS);
        const std::vector<uint16_t> c = dc.values();
        int64_t differ = 0, quiet_nans = 0;
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            const uint16_t got = c[i * n + j];
            if (i == nan_row)
              quiet_nans += (got & 0x7F80) == 0x7F80 && (got & 0x40) != 0;
            else
              differ += got != expected[i * n + j];
          }
        CHECK(differ == 0);
        CHECK(quiet_nans == n);
      }
  }
}

}  // namespace dlk::cpu_test
