// The aliasing rule is about elements, not spans (core/validate_common.cpp,
// check::apart): a C placed in the gaps between the rows (or the matrices of a
// batch) of a strided A or B shares no element with it, so dlk_gemm accepts it
// and computes the right product; C moved by one element onto A or B is
// rejected. Spans too large to compare run by run are refused conservatively.
#include <cstdint>
#include <vector>

#include "tests/core/validation_support.hpp"

namespace {

using namespace dlk_test;

// One f32 GEMM in a single arena: A, B and C at element offsets, each with its
// leading dimension (row-major) and batch stride. B is separate unless placed.
struct Placement {
  int64_t m, n, k, batch = 1;
  int64_t a_at, lda, stride_a;
  int64_t b_at, ldb, stride_b;
  int64_t c_at, ldc, stride_c;
};

dlk_gemm_desc describe(const Placement &p) {
  dlk_gemm_desc desc;
  dlk_gemm_desc_init(&desc, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, p.m, p.n, p.k);
  desc.lda = p.lda, desc.ldb = p.ldb, desc.ldc = p.ldc;
  desc.batch_count = p.batch;
  desc.stride_a = p.stride_a, desc.stride_b = p.stride_b, desc.stride_c = p.stride_c;
  return desc;
}

// Runs the GEMM in an arena of small integers (exact in f32) and checks every
// element of C against the product computed here, and every other element of
// the arena against its value before the call.
void expect_accepted_and_right(const Placement &p) {
  std::vector<float> arena(4096);
  for (size_t i = 0; i < arena.size(); ++i) arena[i] = float(int(i % 7) - 3);
  const std::vector<float> before = arena;
  std::vector<float> expected = arena;
  std::vector<bool> in_c(arena.size(), false);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < p.k; ++l)
          sum += double(before[p.a_at + b * p.stride_a + i * p.lda + l]) *
                 before[p.b_at + b * p.stride_b + l * p.ldb + j];
        const int64_t at = p.c_at + b * p.stride_c + i * p.ldc + j;
        expected[at] = float(sum);
        in_c[at] = true;
      }
  TestContext context;
  const dlk_gemm_desc desc = describe(p);
  expect_success(dlk_gemm(context.get(), &desc, arena.data() + p.a_at, arena.data() + p.b_at,
                          arena.data() + p.c_at));
  for (size_t i = 0; i < arena.size(); ++i) {
    INFO("element " << i << (in_c[i] ? " of C" : " outside C"));
    REQUIRE(arena[i] == expected[i]);
  }
}

void expect_rejected_untouched(const Placement &p) {
  std::vector<float> arena(4096, 0.5f);
  const std::vector<float> before = arena;
  TestContext context;
  const dlk_gemm_desc desc = describe(p);
  expect_rejected(dlk_gemm(context.get(), &desc, arena.data() + p.a_at, arena.data() + p.b_at,
                           arena.data() + p.c_at),
                  "dlk_gemm", "c");
  CHECK(arena == before);
}

// A is 4 x 3 with lda 8: its rows hold elements [8r, 8r + 3) and leave gaps of 5.
Placement c_in_a_gaps(int64_t c_at, int64_t n) {
  return Placement{4, n, 3, 1, 0, 8, 0, 2000, 8, 0, c_at, 8, 0};
}

}  // namespace

TEST_CASE("dlk_gemm: C in the gaps of a strided A is accepted and right", "[validation][gemm][aliasing]") {
  expect_accepted_and_right(c_in_a_gaps(4, 3));  // C's rows at [8r + 4, 8r + 7)
  expect_accepted_and_right(c_in_a_gaps(3, 5));  // C fills the gaps exactly
}

TEST_CASE("dlk_gemm: C one element onto a strided A is rejected", "[validation][gemm][aliasing]") {
  expect_rejected_untouched(c_in_a_gaps(2, 3));  // C's first element is A(0, 2)
  expect_rejected_untouched(c_in_a_gaps(4, 5));  // C's row r ends on A(r + 1, 0)
}

TEST_CASE("dlk_gemm: C in the gaps of a strided B, and between the matrices of a batch",
          "[validation][gemm][aliasing]") {
  // B is 3 x 2 with ldb 6; C (4 x 2, ldc 6) sits at B + 3.
  expect_accepted_and_right(Placement{4, 2, 3, 1, 0, 3, 0, 1000, 6, 0, 1003, 6, 0});
  expect_rejected_untouched(Placement{4, 2, 3, 1, 0, 3, 0, 1000, 6, 0, 1001, 6, 0});
  // Three A matrices (2 x 3, dense) 12 elements apart; each C (2 x 3) in the
  // 6 elements between two of them.
  expect_accepted_and_right(Placement{2, 3, 3, 3, 0, 3, 12, 1000, 3, 9, 6, 3, 12});
  expect_rejected_untouched(Placement{2, 3, 3, 3, 0, 3, 12, 1000, 3, 9, 7, 3, 12});
}

TEST_CASE("dlk_gemm: spans too large to compare element by element are refused", "[validation][gemm][aliasing]") {
  // 2^10 matrices of A (2^12 x 1, lda 2) and of C in A's gaps: apart, but 2^32
  // (run, matrix) pairs to compare. Refused before any memory is touched.
  const int64_t rows = int64_t(1) << 12, batch = int64_t(1) << 10, stride = rows * 2;
  dlk_gemm_desc desc;
  dlk_gemm_desc_init(&desc, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, rows, 1, 1);
  desc.lda = 2, desc.ldb = 1, desc.ldc = 2;
  desc.batch_count = batch, desc.stride_a = stride, desc.stride_b = 0, desc.stride_c = stride;
  const auto *a = reinterpret_cast<const float *>(uintptr_t{1} << 30);
  const float b = 1.0f;
  TestContext context;
  expect_rejected(dlk_gemm(context.get(), &desc, a, &b, const_cast<float *>(a + 1)), "dlk_gemm", "c");
  CHECK_THAT(dlk_last_error(), Catch::Contains("too large to compare element by element"));
}
