// bf16 and int8 GEMM on AMX tiles (kernels/gemm_amx_32x32.cpp, the Amx*Path
// of gemm_driver.cpp) at every edge of their blocking: C tiles of 1-16 and 17-32
// rows (one or two A tiles) and 1-16 or 17-32 columns (one or two B tiles),
// k steps of 32 bf16 or 64 int8 with a tail (copied zero-padded: a tile load
// would read past A's row and B's panel), k off the layouts' groups (packed
// A's zero columns), several k blocks, A read in place, packed as a row-major
// copy (rows 4 KiB apart, and transposed A), batch entries and rows split
// among threads. Integer data, so every sum is exact: a tile that read a row
// or column past its edge, a tail read from the wrong k, or a k block summed
// twice would show. bf16: C f32 with alpha 2 and beta 1 over -1s, or bf16
// (the exact sums rounded once); int8: u8 A with a zero point (B's column sums
// compensate it, through the kernel's AVX-512 store) and without (C stored by
// tile stores), s8 A (shifted to u8 in packing), s32 C.
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {
namespace {

struct Shape {
  int64_t m, n, k, batch, lda;  // lda: A's row stride (row-major) or column stride (transposed)
  bool a_transposed;
};

std::vector<Shape> shapes() {
  std::vector<Shape> out;
  // (m or n of 1 is a GEMV, not tiles.) Odd m: A packed, its rows past k.
  for (const int64_t m : {2, 15, 16, 17, 31, 32, 33, 70})
    for (const int64_t n : {2, 16, 17, 31, 33})
      for (const int64_t k : {1, 2, 30, 32, 34, 63, 66})
        out.push_back({m, n, k, 1, k + (m % 2 ? 3 : 0), false});
  // Several k blocks (KC 768 from a 48 KiB L1), batch entries, rows for 2-3
  // threads; A's rows 4 KiB apart (packed, not read in place); transposed A.
  out.push_back({96, 49, 2000, 2, 2000, false});
  out.push_back({200, 100, 1600, 1, 1600 + 6, false});
  out.push_back({64, 70, 2048, 1, 2048, false});
  out.push_back({45, 40, 900, 1, 45 + 3, true});
  out.push_back({130, 66, 130, 2, 130, true});
  return out;
}

// C (of c_type) after dlk_gemm with alpha and beta over C's -1s; A's padding
// holds `pad` (bf16 NaN, or int8 that would change a sum).
template <class C, class TA, class TB>
std::vector<C> product(const Context &ctx, const Shape &s, dlk_dtype a_type, dlk_dtype b_type,
                       dlk_dtype c_type, float alpha, float beta, const std::vector<TA> &a_tight,
                       const std::vector<TB> &b, TA pad, int a_zero, C minus_one,
                       const char *kernel) {
  const int64_t a_entry = (s.a_transposed ? s.k : s.m) * s.lda;
  std::vector<TA> a(s.batch * a_entry, pad);
  for (int64_t e = 0; e < s.batch; ++e)
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t p = 0; p < s.k; ++p)
        a[e * a_entry + (s.a_transposed ? p * s.lda + i : i * s.lda + p)] =
            a_tight[(e * s.m + i) * s.k + p];
  dlk_gemm_desc d;
  dlk_gemm_desc_init(&d, a_type, b_type, c_type, s.m, s.n, s.k);
  d.trans_a = s.a_transposed ? DLK_TRANSPOSE : DLK_NO_TRANSPOSE;
  d.lda = s.lda;
  d.batch_count = s.batch;
  d.stride_a = a_entry, d.stride_b = s.k * s.n, d.stride_c = s.m * s.n;
  d.alpha = alpha, d.beta = beta;
  d.a_zero_point = a_zero;
  Buffer<TA> da(ctx, a);
  Buffer<TB> db(ctx, b);
  Buffer<C> dc(ctx, std::vector<C>(s.batch * s.m * s.n, minus_one));
  REQUIRE(dlk_gemm(ctx.get(), &d, da.data(), db.data(), dc.data()) == DLK_STATUS_SUCCESS);
  CHECK(implementation(ctx) == kernel);
  return dc.values();
}

}  // namespace

TEST_CASE("gemm: bf16 and int8 on AMX tiles give the exact sums at every edge of tiles and k steps",
          "[cpu][gemm]") {
  if (!runs_on_amx("avx512", DLK_DTYPE_BF16)) {
    WARN("skipped: this CPU has no AMX-BF16 (or Linux did not grant the tile state)");
    return;
  }
  const bool int8_on_amx = runs_on_amx("avx512", DLK_DTYPE_U8);
  if (!int8_on_amx) WARN("int8 skipped: this CPU has no AMX-INT8");
  std::mt19937 rng(32);
  for (const Shape &s : shapes()) {
    const std::vector<int> a = random_ints(s.batch * s.m * s.k, -3, 3, rng);
    const std::vector<int> b = random_ints(s.batch * s.k * s.n, -3, 3, rng);
    std::vector<double> sums(s.batch * s.m * s.n, 0.0);
    for (int64_t e = 0; e < s.batch; ++e)
      for (int64_t i = 0; i < s.m; ++i)
        for (int64_t p = 0; p < s.k; ++p)
          for (int64_t j = 0; j < s.n; ++j)
            sums[(e * s.m + i) * s.n + j] +=
                a[(e * s.m + i) * s.k + p] * b[(e * s.k + p) * s.n + j];
    std::vector<uint16_t> a16, b16;
    for (const int v : a) a16.push_back(bf16_bits(static_cast<float>(v)));
    for (const int v : b) b16.push_back(bf16_bits(static_cast<float>(v)));
    std::vector<uint8_t> a_u8;  // a + 4, zero point 4
    for (const int v : a) a_u8.push_back(static_cast<uint8_t>(v + 4));
    const std::vector<int8_t> a_s8 = cast<int8_t>(a), b_s8 = cast<int8_t>(b);
    std::vector<float> want_f32;
    std::vector<uint16_t> want_bf16;
    std::vector<int32_t> want_s32;
    for (const double v : sums) {
      want_f32.push_back(static_cast<float>(2 * v - 1));
      want_bf16.push_back(bf16_bits(static_cast<float>(v)));
      want_s32.push_back(static_cast<int32_t>(v));
    }
    for (const int threads : {1, 2, 3}) {
      const Context ctx("avx512", threads);
      INFO("threads " << threads << " m " << s.m << " n " << s.n << " k " << s.k << " batch "
                      << s.batch << (s.a_transposed ? " A transposed, lda " : " lda ") << s.lda);
      const char *bf16 = "avx512:gemm_bf16_amx_32x32", *int8 = "avx512:gemm_u8s8s32_amx_32x32";
      const auto bf16_gemm = [&](dlk_dtype c_type, float alpha, float beta, auto minus_one) {
        return product(ctx, s, DLK_DTYPE_BF16, DLK_DTYPE_BF16, c_type, alpha, beta, a16, b16,
                       uint16_t{0x7FC0}, 0, minus_one, bf16);
      };
      CHECK(bf16_gemm(DLK_DTYPE_F32, 2.0f, 1.0f, -1.0f) == want_f32);
      CHECK(bf16_gemm(DLK_DTYPE_BF16, 1.0f, 0.0f, uint16_t{0xBF80}) == want_bf16);
      if (!int8_on_amx) continue;
      CHECK(product(ctx, s, DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_S32, 1.0f, 0.0f, a_u8, b_s8,
                    uint8_t{0xFF}, 4, int32_t{-1}, int8) == want_s32);
      CHECK(product(ctx, s, DLK_DTYPE_S8, DLK_DTYPE_S8, DLK_DTYPE_S32, 1.0f, 0.0f, a_s8, b_s8,
                    int8_t{127}, 0, int32_t{-1}, int8) == want_s32);
    }
  }
}


TEST_CASE("gemm on AMX tiles: one row of C with any ldc (dlk.h allows it), A and B transposed",
          "[cpu][gemm]") {
  // Found by fuzz:gemm: the tiles' C stride in bytes was ldc x 4, which
  // overflowed for ldc near the largest int64_t though a single row never
  // uses it. A transposed with rows apart (lda 3) keeps the GEMM off the GEMV.
  const bool bf16_on_amx = runs_on_amx("avx512", DLK_DTYPE_BF16);
  const bool int8_on_amx = runs_on_amx("avx512", DLK_DTYPE_U8);
  if (!bf16_on_amx && !int8_on_amx) {
    WARN("skipped: this CPU has no AMX (or Linux did not grant the tile state)");
    return;
  }
  const int64_t n = 14, k = 2;
  const Context ctx("avx512", 1);
  for (const bool int8 : {false, true}) {
    if (int8 ? !int8_on_amx : !bf16_on_amx) continue;
    INFO((int8 ? "u8 x s8 -> s32" : "bf16 x bf16 -> f32"));
    dlk_gemm_desc d;
    dlk_gemm_desc_init(&d, int8 ? DLK_DTYPE_U8 : DLK_DTYPE_BF16,
                       int8 ? DLK_DTYPE_S8 : DLK_DTYPE_BF16, int8 ? DLK_DTYPE_S32 : DLK_DTYPE_F32,
                       1, n, k);
    d.trans_a = d.trans_b = DLK_TRANSPOSE;
    d.lda = 3, d.ldb = k, d.ldc = std::numeric_limits<int64_t>::max();
    // A (k x 1, rows 3 apart): 1, 2; B (n x k): row j is j, 1; C = 1 x j + 2 x 1.
    std::vector<uint16_t> a16 = {bf16_bits(1.0f), 0, 0, bf16_bits(2.0f)}, b16;
    std::vector<uint8_t> a8 = {1, 0, 0, 2};
    std::vector<int8_t> b8;
    std::vector<int32_t> want;
    for (int64_t j = 0; j < n; ++j) {
      b16.push_back(bf16_bits(static_cast<float>(j))), b16.push_back(bf16_bits(1.0f));
      b8.push_back(static_cast<int8_t>(j)), b8.push_back(1);
      want.push_back(static_cast<int32_t>(j + 2));
    }
    if (int8) {
      Buffer<uint8_t> a(ctx, a8);
      Buffer<int8_t> b(ctx, b8);
      Buffer<int32_t> c(ctx, std::vector<int32_t>(n, -1));
      REQUIRE(dlk_gemm(ctx.get(), &d, a.data(), b.data(), c.data()) == DLK_STATUS_SUCCESS);
      CHECK(implementation(ctx) == "avx512:gemm_u8s8s32_amx_32x32");
      CHECK(c.values() == want);
    } else {
      Buffer<uint16_t> a(ctx, a16), b(ctx, b16);
      Buffer<float> c(ctx, std::vector<float>(n, -1.0f));
      REQUIRE(dlk_gemm(ctx.get(), &d, a.data(), b.data(), c.data()) == DLK_STATUS_SUCCESS);
      CHECK(implementation(ctx) == "avx512:gemm_bf16_amx_32x32");
      std::vector<float> want_f32(want.begin(), want.end());
      CHECK(c.values() == want_f32);
    }
  }
}

}  // namespace dlk::cpu_test
