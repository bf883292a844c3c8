// The blocked f32 and bf16 GEMMs read a row-major B where it lies when C has
// few rows (gemm_driver.cpp, reads_b_in_place; bf16 rows interleaved into
// k-pairs by the kernel) and pack it otherwise; a transposed B is always
// packed. With operands whose sums are exact in f32, both must give the same
// bits, on every tier: a wrong stride, a lane read past a row's end (B's
// padding holds NaN), a k block read twice or a pair's rows swapped would
// show. Shapes: column edges of 1, 16, 17 and 31 (masked loads of a row that
// ends there), ldb past n, several k blocks and batch entries, beta; an odd k
// (bf16 packs it); f32 rows 4 KiB apart under 200 rows of C (in place) and
// 300 (packed), and 8 KiB apart over k = 520 (in place, in k blocks of at most
// 128: kAliasedBKc).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {
namespace {

struct Shape {
  int64_t m, n, k, batch;
};

// C = A * B + 0.5 C with B given row-major (ldb = n + 3) or transposed, A and
// B of `type` (f32, or bf16 bits), C f32.
template <class T>
std::vector<float> product(const Context &ctx, dlk_dtype type, const Shape &s, bool b_transposed,
                           const std::vector<T> &a, const std::vector<T> &b_rows, T nan,
                           const std::vector<float> &c0) {
  const int64_t ldb = b_transposed ? s.k + 3 : s.n + 3;
  const int64_t b_entry = (b_transposed ? s.n : s.k) * ldb;
  std::vector<T> b(b_entry * s.batch, nan);  // padding must not be read
  for (int64_t e = 0; e < s.batch; ++e)
    for (int64_t p = 0; p < s.k; ++p)
      for (int64_t j = 0; j < s.n; ++j)
        b[e * b_entry + (b_transposed ? j * ldb + p : p * ldb + j)] =
            b_rows[(e * s.k + p) * s.n + j];
  dlk_gemm_desc d;
  dlk_gemm_desc_init(&d, type, type, DLK_DTYPE_F32, s.m, s.n, s.k);
  d.trans_b = b_transposed ? DLK_TRANSPOSE : DLK_NO_TRANSPOSE;
  d.ldb = ldb;
  d.batch_count = s.batch;
  d.stride_a = s.m * s.k, d.stride_b = b_entry, d.stride_c = s.m * s.n;
  d.beta = 0.5f;
  Buffer<T> da(ctx, a), db(ctx, b);
  Buffer<float> dc(ctx, c0);
  REQUIRE(dlk_gemm(ctx.get(), &d, da.data(), db.data(), dc.data()) == DLK_STATUS_SUCCESS);
  return dc.values();
}

}  // namespace

TEST_CASE("gemm: f32 and bf16 B read in place give the bits of B packed", "[cpu][gemm]") {
  // Few rows (in place), past 128^3 multiply-adds so that the blocked loops run;
  // n with a last micro-panel of 1, 16, 17 and 31 columns; k over two blocks.
  const std::vector<Shape> shapes{{14, 1025, 300, 1}, {30, 400, 1200, 2}, {64, 785, 64, 1},
                                  {8, 2063, 130, 3},  {2, 4127, 260, 1},  {60, 3136, 64, 1},
                                  {16, 700, 301, 1},  {200, 1021, 64, 1}, {300, 1021, 64, 1},
                                  {49, 2045, 520, 1}};
  for (const std::string &isa : cpu_tiers()) {
    Context ctx(isa);
    for (const Shape &s : shapes) {
      INFO(isa << " m " << s.m << " n " << s.n << " k " << s.k << " batch " << s.batch);
      std::vector<float> a(s.m * s.k * s.batch), b(s.k * s.n * s.batch), c0(s.m * s.n * s.batch);
      for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(int64_t(i * 7 % 19) - 9) / 8;
      for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(int64_t(i * 5 % 23) - 11) / 16;
      for (size_t i = 0; i < c0.size(); ++i) c0[i] = static_cast<float>(i % 5);
      // Exact in bf16 too: at most 5 significant bits.
      std::vector<uint16_t> a16(a.size()), b16(b.size());
      for (size_t i = 0; i < a.size(); ++i) a16[i] = bf16_bits(a[i]);
      for (size_t i = 0; i < b.size(); ++i) b16[i] = bf16_bits(b[i]);
      const float nan = std::nanf("");
      const uint16_t nan16 = 0x7FC0;
      for (const dlk_dtype type : {DLK_DTYPE_F32, DLK_DTYPE_BF16}) {
        INFO((type == DLK_DTYPE_F32 ? "f32" : "bf16"));
        const bool f32 = type == DLK_DTYPE_F32;
        const std::vector<float> rows = f32 ? product(ctx, type, s, false, a, b, nan, c0)
                                            : product(ctx, type, s, false, a16, b16, nan16, c0);
        const std::vector<float> packed = f32 ? product(ctx, type, s, true, a, b, nan, c0)
                                              : product(ctx, type, s, true, a16, b16, nan16, c0);
        REQUIRE(rows.size() == packed.size());
        int64_t differ = 0;
        for (size_t i = 0; i < rows.size(); ++i) differ += rows[i] != packed[i];
        CHECK(differ == 0);
        // And against the sum itself (exact here: small multiples of 1/128).
        const int64_t e = s.batch - 1, i = s.m - 1, j = s.n - 1;
        double want = 0.5 * c0[(e * s.m + i) * s.n + j];
        for (int64_t p = 0; p < s.k; ++p)
          want += double(a[(e * s.m + i) * s.k + p]) * b[(e * s.k + p) * s.n + j];
        CHECK(rows[(e * s.m + i) * s.n + j] == static_cast<float>(want));
      }
    }
  }
}

// Column-major C over few rows (up to 8 panels of 32), B's rows read in place
// a multiple of 4 KiB apart: the GEMM keeps C as it is, its product in a
// workspace stored down C's columns (gemm_driver.cpp, gemm_keeps_column_major_c;
// an NCHW 1x1 backward data at batch 1 over 1024 or 2048 channels), beside
// shapes it turns around (B's rows 4 KiB + 64 bytes apart; 300 rows). A is m x
// k column-major (a pixel-major diff_dst^T), B op(B) of an n x k column-major
// matrix, C m x n past ldc; beta 1 adds to C's -1s. Integer data: every sum
// exact, C's padding kept.
TEST_CASE("gemm: a column-major C over B's rows 4 KiB apart gives the exact sums, its padding "
          "untouched",
          "[cpu][gemm]") {
  struct KeptShape {
    int64_t m, n, k, ldb;
  };
  const KeptShape shapes[] = {
      {49, 1024, 300, 1024},   // kept: 32 + 17 rows, k blocks of 100
      {196, 2048, 256, 2048},  // kept: 7 panels
      {50, 1000, 520, 1024},   // kept, n short of ldb
      {49, 1024, 300, 1040},   // turned: rows not 4 KiB apart
      {300, 1024, 64, 1024},   // turned: 10 panels
  };
  for (const KeptShape &s : shapes) {
    const int64_t lda = s.m + 3, ldc = s.m + 5;
    std::vector<float> a(s.k * lda, std::nanf("")), b(s.k * s.ldb, std::nanf(""));
    const auto a_at = [&](int64_t i, int64_t p) { return float((i * 7 + p * 3) % 9 - 4); };
    const auto b_at = [&](int64_t p, int64_t j) { return float((p * 5 + j * 11) % 7 - 3); };
    for (int64_t p = 0; p < s.k; ++p)
      for (int64_t i = 0; i < s.m; ++i) a[p * lda + i] = a_at(i, p);
    for (int64_t p = 0; p < s.k; ++p)
      for (int64_t j = 0; j < s.n; ++j) b[p * s.ldb + j] = b_at(p, j);
    std::vector<double> sums(s.m * s.n, 0.0);
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t p = 0; p < s.k; ++p)
        for (int64_t j = 0; j < s.n; ++j) sums[i * s.n + j] += double(a_at(i, p)) * b_at(p, j);
    for (const std::string &isa : cpu_tiers())
      for (const int threads : {1, 2, 3})
        for (const float beta : {0.0f, 1.0f}) {
          INFO(isa << " threads " << threads << " m " << s.m << " n " << s.n << " k " << s.k
                   << " ldb " << s.ldb << " beta " << beta);
          const Context ctx(isa, threads);
          dlk_gemm_desc d;
          dlk_gemm_desc_init(&d, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, s.m, s.n, s.k);
          d.layout = DLK_COL_MAJOR;
          d.trans_b = DLK_TRANSPOSE;
          d.lda = lda, d.ldb = s.ldb, d.ldc = ldc;
          d.beta = beta;
          const std::vector<float> c = column_major_gemm(ctx, d, a, b);
          int64_t differ = 0;
          for (int64_t j = 0; j < s.n; ++j)
            for (int64_t i = 0; i < ldc; ++i) {
              const double want =
                  i < s.m ? sums[i * s.n + j] - (beta == 0.0f ? 0.0 : 1.0) : -1.0;
              differ += static_cast<double>(c[j * ldc + i]) != want;
            }
          CHECK(differ == 0);
        }
  }
}

}  // namespace dlk::cpu_test
