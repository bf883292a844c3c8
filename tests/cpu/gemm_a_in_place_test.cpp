// The blocked GEMM reads a large A where it lies when B has few micro-panels
// (gemm_driver.cpp, few_panels_of_b: up to 8; rows or columns a multiple of
// 4 KiB apart only as f32 or bf16 rows, kAliasedRowsMr) and packs it otherwise:
// row-major A on every kernel that reads rows in place, transposed f32 A (its
// columns: each k step's rows side by side) on the AVX-512 f32 kernel. With integer data,
// whose sums f32 and s32 hold exactly, every result is known bit for bit:
// a wrong row, column or batch stride, a k block read twice or from the wrong
// offset, a thread's rows read from another's share, or a read past a row's
// or column's end (A's padding holds NaN, or bytes that would change an
// integer sum) would show. Shapes: A of 0.1-1.7 MB under 2, 7 and 8 panels,
// several k blocks of every kernel (f32 512, bf16 1024, int8 2048), batch
// entries, rows split among 2 and 3 threads, f32 and bf16 rows 4 KiB apart
// (read in micro-rows of 10), 1-4 columns past a vector of 16 (summed along
// k on AVX-512), and the declines: f32 columns 4 KiB apart, an
// odd row count, k not a whole number of int8's quads. u8 and s8 C are
// requantized by the AVX-512 VNNI micro-kernel itself on the last k block
// (S32Tile::requantize; the earlier blocks sum into the workspace): scales of
// 1/2 and 1/8 make ties, 3 saturates, both against dlk.h's rule.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/numeric.hpp"
#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {
namespace {

// lda: A's row stride as given; lda_t: its column stride when transposed.
struct Shape {
  int64_t m, n, k, batch, lda, lda_t;
};

const Shape kShapes[] = {
    // res5b's weights over 49 pixels: 2 panels
    {96, 49, 4608, 1, 4608 + 5, 96 + 5},
    // 7 panels, batch 2, 22 micro-rows to split
    {300, 200, 700, 2, 700 + 3, 300 + 3},
    // 8 panels, rows (columns) as tight as they come
    {140, 256, 2200, 1, 2200, 140},
    // f32 rows 4 KiB apart: in place in micro-rows of 10 (columns so apart:
    // packed)
    {64, 96, 1024, 1, 1024, 1024},
    // f32 rows 8 KiB apart (bf16 4 KiB) under 2 panels: micro-rows of 10, the
    // last of 8, split by rows on 2 threads
    {98, 49, 2048, 1, 2048, 98},
    // 2 panels; int8 packs (k not a multiple of 4)
    {62, 33, 2050, 3, 2050 + 1, 62 + 1},
    // odd rows: packed
    {45, 40, 900, 1, 900 + 2, 45 + 2},
    // Tail columns past whole vectors of 16 summed along k (the AVX-512 f32
    // and bf16 kernels, gemm_tile_tail_columns_avx512.inc): 4 alone in the
    // second panel, k blocks whose steps end off a vector of 16;
    {96, 36, 1030, 1, 1030 + 3, 96 + 3},
    // 16 + 3 in the second panel, batch 2; 16 + 2 in the only panel;
    {56, 51, 700, 2, 700 + 3, 56 + 3},
    {28, 18, 130, 1, 130 + 1, 28 + 1},
    // ResNet-50 res4's 14 x 14 pixels: 4 in the seventh panel
    {42, 196, 300, 1, 300 + 5, 42 + 5},
    // res2a_1x1b's NHWC weight gradient: 256 output channels over 3136 pixels
    // into 64 input channels, 2 panels
    {256, 64, 3136, 1, 3136, 256},
};

// The exact sums, e.g. C[e][i][j] = sum_p (A[e][i][p] - a_zero) B[e][p][j].
std::vector<double> exact(const Shape &s, const std::vector<int> &a, const std::vector<int> &b,
                          int a_zero) {
  std::vector<double> c(s.batch * s.m * s.n, 0.0);
  for (int64_t e = 0; e < s.batch; ++e)
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t p = 0; p < s.k; ++p) {
        const double v = a[(e * s.m + i) * s.k + p] - a_zero;
        for (int64_t j = 0; j < s.n; ++j)
          c[(e * s.m + i) * s.n + j] += v * b[(e * s.k + p) * s.n + j];
      }
  return c;
}

// dlk.h's s8 / u8 C of the exact sums `sums` under a scale per column and C's
// zero point.
std::vector<double> requantized(const Shape &s, const std::vector<double> &sums,
                                const std::vector<float> &scales, int32_t c_zero, bool u8) {
  std::vector<double> c(sums.size());
  for (size_t e = 0; e < sums.size(); ++e)
    c[e] = core::requantize(static_cast<float>(sums[e]) * scales[e % s.n], c_zero,
                            u8 ? 0 : -128, u8 ? 255 : 127);
  return c;
}

// C = A B for A row-major with lda past k, or transposed (k x m) with lda_t
// past m (its padding `pad`), B tight, C of c_type (every element written: it
// starts at -1), scaled per column and with C's zero point where `scales`.
template <class C, class TA, class TB>
std::vector<C> product(const Context &ctx, dlk_dtype a_type, dlk_dtype b_type, dlk_dtype c_type,
                       const Shape &s, bool a_transposed, const std::vector<TA> &a_tight,
                       const std::vector<TB> &b, TA pad, int a_zero,
                       const std::vector<float> *scales = nullptr, int32_t c_zero = 0) {
  const int64_t lda = a_transposed ? s.lda_t : s.lda;
  const int64_t a_entry = (a_transposed ? s.k : s.m) * lda;
  std::vector<TA> a(s.batch * a_entry, pad);
  for (int64_t e = 0; e < s.batch; ++e)
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t p = 0; p < s.k; ++p)
        a[e * a_entry + (a_transposed ? p * lda + i : i * lda + p)] =
            a_tight[(e * s.m + i) * s.k + p];
  dlk_gemm_desc d;
  dlk_gemm_desc_init(&d, a_type, b_type, c_type, s.m, s.n, s.k);
  d.trans_a = a_transposed ? DLK_TRANSPOSE : DLK_NO_TRANSPOSE;
  d.lda = lda;
  d.batch_count = s.batch;
  d.stride_a = a_entry, d.stride_b = s.k * s.n, d.stride_c = s.m * s.n;
  d.a_zero_point = a_zero;
  if (scales) {
    d.scale_mode = DLK_SCALE_PER_CHANNEL;
    d.scales = scales->data();
    d.c_zero_point = c_zero;
  }
  Buffer<TA> da(ctx, a);
  Buffer<TB> db(ctx, b);
  Buffer<C> dc(ctx, std::vector<C>(s.batch * s.m * s.n, C(-1)));
  REQUIRE(dlk_gemm(ctx.get(), &d, da.data(), db.data(), dc.data()) == DLK_STATUS_SUCCESS);
  return dc.values();
}

template <class C>
int64_t differing(const std::vector<C> &got, const std::vector<double> &want) {
  REQUIRE(got.size() == want.size());
  int64_t differ = 0;
  for (size_t i = 0; i < got.size(); ++i) differ += static_cast<double>(got[i]) != want[i];
  return differ;
}

}  // namespace

TEST_CASE("gemm: A read in place under few panels of B gives the exact sums, every dtype",
          "[cpu][gemm]") {
  std::mt19937 rng(26);
  // The data, in every dtype, and their sums once a shape (the sums are most
  // of the time under a sanitizer); every tier and thread count reads them.
  for (const Shape &s : kShapes) {
    const std::vector<int> a = random_ints(s.batch * s.m * s.k, -4, 4, rng);
    const std::vector<int> b = random_ints(s.batch * s.k * s.n, -4, 4, rng);
    const std::vector<double> want = exact(s, a, b, 0);
    const std::vector<float> a32 = cast<float>(a), b32 = cast<float>(b);
    std::vector<uint16_t> a16(a.size()), b16(b.size());
    for (size_t i = 0; i < a.size(); ++i) a16[i] = bf16_bits(a32[i]);
    for (size_t i = 0; i < b.size(); ++i) b16[i] = bf16_bits(b32[i]);
    // u8 A = a + 7 with its zero point 7 (B's column sums enter), s8 B.
    std::vector<uint8_t> a8(a.size());
    for (size_t i = 0; i < a.size(); ++i) a8[i] = static_cast<uint8_t>(a[i] + 7);
    const std::vector<int8_t> b8 = cast<int8_t>(b);
    std::vector<float> scales(s.n);
    for (int64_t j = 0; j < s.n; ++j) scales[j] = j % 3 == 0 ? 0.5f : j % 3 == 1 ? 0.125f : 3.0f;
    const std::vector<double> want_u8 = requantized(s, want, scales, 100, true);
    const std::vector<double> want_s8 = requantized(s, want, scales, -20, false);
    for (const std::string &isa : cpu_tiers())
      for (const int threads : {1, 2, 3}) {
        const Context ctx(isa, threads);
        for (const bool t : {false, true}) {
          INFO(isa << " threads " << threads << " m " << s.m << " n " << s.n << " k " << s.k
                   << " batch " << s.batch << (t ? " A transposed, lda " : " lda ")
                   << (t ? s.lda_t : s.lda));
          CHECK(differing(product<float>(ctx, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, s, t,
                                         a32, b32, std::nanf(""), 0),
                          want) == 0);
          CHECK(differing(product<float>(ctx, DLK_DTYPE_BF16, DLK_DTYPE_BF16, DLK_DTYPE_F32, s,
                                         t, a16, b16, uint16_t{0x7FC0}, 0),
                          want) == 0);
          CHECK(differing(product<int32_t>(ctx, DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_S32, s, t,
                                           a8, b8, uint8_t{0xFF}, 7),
                          want) == 0);
          // (u8 and s8 C on 1 and 3 threads, one share and uneven shares:
          // the sanitizer builds spent most of this test's time on them.)
          if (threads == 2) continue;
          CHECK(differing(product<uint8_t>(ctx, DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_U8, s, t,
                                           a8, b8, uint8_t{0xFF}, 7, &scales, 100),
                          want_u8) == 0);
          CHECK(differing(product<int8_t>(ctx, DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_S8, s, t,
                                          a8, b8, uint8_t{0xFF}, 7, &scales, -20),
                          want_s8) == 0);
        }
      }
  }
}

// Column-major C over so few columns against k (8 n <= k) that the GEMM keeps
// it, A's rows read in place, and stores C down its columns in bands of rows
// (gemm_driver.cpp, keeps_column_major_c; an NHWC convolution's forward at
// batch 1), beside a shape that turns the product around (8 n > k). A is op(A)
// of a k x m column-major matrix (its rows in place), B k x n, C m x n past
// ldc; beta 1 adds to C's -1s. Integer data: every sum exact, C's padding kept.
TEST_CASE("gemm: a column-major C over few columns gives the exact sums, its padding untouched",
          "[cpu][gemm]") {
  struct ColumnMajorShape {
    int64_t m, n, k;
  };
  const ColumnMajorShape shapes[] = {
      {96, 20, 700},    // one panel
      {300, 49, 2048},  // 49 pixels: 32 + 16 + 1 columns; bands of 256 and 44 rows
      {62, 32, 256},    // 8 n == k
      {64, 40, 300},    // turned around
  };
  std::mt19937 rng(62);
  for (const ColumnMajorShape &s : shapes) {
    const int64_t lda = s.k + 3, ldb = s.k + 1, ldc = s.m + 5;
    const std::vector<int> a = random_ints(s.m * s.k, -4, 4, rng);
    const std::vector<int> b = random_ints(s.k * s.n, -4, 4, rng);
    std::vector<float> a_stored(s.m * lda, std::nanf("")), b_stored(s.n * ldb, std::nanf(""));
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t p = 0; p < s.k; ++p) a_stored[i * lda + p] = static_cast<float>(a[i * s.k + p]);
    for (int64_t p = 0; p < s.k; ++p)
      for (int64_t j = 0; j < s.n; ++j) b_stored[j * ldb + p] = static_cast<float>(b[p * s.n + j]);
    for (const std::string &isa : cpu_tiers())
      for (const int threads : {1, 2, 3})
        for (const float beta : {0.0f, 1.0f}) {
          INFO(isa << " threads " << threads << " m " << s.m << " n " << s.n << " k " << s.k
                   << " beta " << beta);
          const Context ctx(isa, threads);
          dlk_gemm_desc d;
          dlk_gemm_desc_init(&d, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, s.m, s.n, s.k);
          d.layout = DLK_COL_MAJOR;
          d.trans_a = DLK_TRANSPOSE;
          d.lda = lda, d.ldb = ldb, d.ldc = ldc;
          d.beta = beta;
          const std::vector<float> c = column_major_gemm(ctx, d, a_stored, b_stored);
          int64_t differ = 0;
          for (int64_t j = 0; j < s.n; ++j)
            for (int64_t i = 0; i < ldc; ++i) {
              double want = -1.0;
              if (i < s.m) {
                want = beta == 0.0f ? 0.0 : -1.0;
                for (int64_t p = 0; p < s.k; ++p) want += double(a[i * s.k + p]) * b[p * s.n + j];
              }
              differ += static_cast<double>(c[j * ldc + i]) != want;
            }
          CHECK(differ == 0);
        }
  }
}

}  // namespace dlk::cpu_test
