// Which GEMM path the CPU backend's rule picks (backends/cpu_avx512/
// gemm_unpacked.cpp), on every tier, as the op record names it: f32 with one
// row or column of C or at most 128^3 multiply-adds runs without packing, in
// the form whose operands are contiguous along the longest dimension; the rest
// runs the blocked loops. The values themselves are the conformance suite's.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/cpu/cpu_context.hpp"

namespace dlk::cpu_test {
namespace {

std::string implementation_of(const Context &ctx, dlk_dtype in, dlk_dtype out, int64_t m, int64_t n,
                              int64_t k, dlk_transpose ta, dlk_transpose tb) {
  dlk_gemm_desc d;
  dlk_gemm_desc_init(&d, in, in, out, m, n, k);
  d.trans_a = ta, d.trans_b = tb;
  d.lda = ta == DLK_TRANSPOSE ? m : k;
  d.ldb = tb == DLK_TRANSPOSE ? k : n;
  const size_t in_bytes = dlk_dtype_size(in), out_bytes = dlk_dtype_size(out);
  Buffer<char> a(ctx, std::vector<char>(m * k * in_bytes, 0));
  Buffer<char> b(ctx, std::vector<char>(k * n * in_bytes, 0));
  Buffer<char> c(ctx, std::vector<char>(m * n * out_bytes, 0));
  REQUIRE(dlk_gemm(ctx.get(), &d, a.data(), b.data(), c.data()) == DLK_STATUS_SUCCESS);
  dlk_op_record record;
  REQUIRE(dlk_context_last_op(ctx.get(), &record) == DLK_STATUS_SUCCESS);
  return record.implementation;
}

}  // namespace

TEST_CASE("gemm: f32 with one row or column of C, or a small product, runs without packing",
          "[cpu][gemm]") {
  const dlk_transpose N = DLK_NO_TRANSPOSE, T = DLK_TRANSPOSE;
  for (const std::string &isa : cpu_tiers()) {
    INFO(isa);
    Context ctx(isa);
    const auto path = [&](int64_t m, int64_t n, int64_t k, dlk_transpose ta, dlk_transpose tb) {
      return implementation_of(ctx, DLK_DTYPE_F32, DLK_DTYPE_F32, m, n, k, ta, tb);
    };
    const std::string prefix = isa + ":gemm_f32_unpacked_";
    CHECK(path(1, 1024, 1024, N, N) == prefix + "axpy");  // B's rows contiguous along n
    CHECK(path(1, 1024, 1024, N, T) == prefix + "dot");   // B^T stored n x k
    CHECK(path(1024, 1, 1024, N, N) == prefix + "dot");   // A's rows, B's column along k
    CHECK(path(1024, 1, 1024, T, N) == prefix + "axpy");  // A^T: lanes along m, on C^T
    CHECK(path(64, 64, 64, N, N) == prefix + "axpy");
    CHECK(path(128, 128, 128, T, T) == prefix + "axpy");
    // Lanes that do not fill the register blocks, a wide C with a tiny k,
    // above 128^3 with m, n > 1, and every other dtype: the blocked loops.
    CHECK(path(127, 127, 127, N, N).find("unpacked") == std::string::npos);
    CHECK(path(48, 48, 48, N, N).find("unpacked") == std::string::npos);
    CHECK(path(256, 256, 4, N, N).find("unpacked") == std::string::npos);
    CHECK(path(16, 16, 16, N, N) == prefix + "axpy");
    CHECK(path(129, 128, 128, N, N).find("unpacked") == std::string::npos);
    CHECK(path(2048, 2048, 4, N, N).find("unpacked") == std::string::npos);
    CHECK(implementation_of(ctx, DLK_DTYPE_F16, DLK_DTYPE_F32, 1, 64, 64, N, N).find("unpacked") ==
          std::string::npos);
    CHECK(implementation_of(ctx, DLK_DTYPE_S8, DLK_DTYPE_S32, 1, 64, 64, N, N).find("unpacked") ==
          std::string::npos);
  }
}

}  // namespace dlk::cpu_test

namespace dlk::cpu_test {

// Found by fuzz_gemm: with one row of B its leading dimension may be anything,
// and stepping a pointer past that row overflowed (clang UBSan: pointer-overflow).
TEST_CASE("gemm: the unpacked loops form no address past B's only row", "[cpu][gemm]") {
  for (const std::string &isa : cpu_tiers()) {
    INFO(isa);
    Context ctx(isa);
    dlk_gemm_desc d;
    dlk_gemm_desc_init(&d, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 2, 3, 1);
    d.ldb = INT64_MAX / 4;
    Buffer<float> a(ctx, {1, 2}), b(ctx, {1, 2, 3}), c(ctx, std::vector<float>(6, 0.0f));
    REQUIRE(dlk_gemm(ctx.get(), &d, a.data(), b.data(), c.data()) == DLK_STATUS_SUCCESS);
    CHECK(c.values() == std::vector<float>{1, 2, 3, 2, 4, 6});
    dlk_op_record record;
    REQUIRE(dlk_context_last_op(ctx.get(), &record) == DLK_STATUS_SUCCESS);
    CHECK(std::string(record.implementation).find("unpacked") != std::string::npos);
  }
}

}  // namespace dlk::cpu_test
