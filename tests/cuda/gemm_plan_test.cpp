// backends/cuda/gemm_plan.cpp: how a validated GEMM becomes cuBLASLt's
// column-major problem, which route and epilogue it takes, and what keys its
// cached heuristic answer. Pointers are fake addresses: the plan reads only their
// alignment.
#include <catch2/catch.hpp>

#include <climits>
#include <cstdint>

#include "backends/cuda/gemm_plan.hpp"

using namespace dlk;
using dlk::cuda::GemmCompute;
using dlk::cuda::GemmRoute;
using dlk::cuda::Int8Epilogue;

namespace {

const void *address(uintptr_t a) { return reinterpret_cast<const void *>(a); }

// What core/validate_gemm.cpp builds for a dense (layout, transposes, ld) GEMM.
core::GemmArgs dense(dlk_layout layout, dlk_transpose ta, dlk_transpose tb, int64_t m, int64_t n,
                     int64_t k, int64_t lda, int64_t ldb, int64_t ldc, dlk_dtype a_type = DLK_DTYPE_F32,
                     dlk_dtype c_type = DLK_DTYPE_F32) {
  auto strides = [layout](bool transposed, int64_t ld, int64_t &rs, int64_t &cs) {
    const int64_t stored_rs = layout == DLK_ROW_MAJOR ? ld : 1;
    const int64_t stored_cs = layout == DLK_ROW_MAJOR ? 1 : ld;
    rs = transposed ? stored_cs : stored_rs;
    cs = transposed ? stored_rs : stored_cs;
  };
  core::GemmArgs g;
  g.m = m, g.n = n, g.k = k;
  g.a.ptr = address(0x10000), g.b.ptr = address(0x20000), g.c = reinterpret_cast<void *>(0x30000);
  g.a.dtype = a_type;
  g.b.dtype = a_type == DLK_DTYPE_U8 ? DLK_DTYPE_S8 : a_type;
  g.c_type = c_type;
  strides(ta == DLK_TRANSPOSE, lda, g.a.rs, g.a.cs);
  strides(tb == DLK_TRANSPOSE, ldb, g.b.rs, g.b.cs);
  strides(false, ldc, g.rs_c, g.cs_c);
  g.layout = layout, g.trans_a = ta, g.trans_b = tb;
  return g;
}

void check_matrix(const cuda::LtMatrix &l, bool transposed, int64_t rows, int64_t cols, int64_t ld) {
  CHECK(l.transposed == transposed);
  CHECK(l.rows == rows);
  CHECK(l.cols == cols);
  CHECK(l.ld == ld);
}

}  // namespace

TEST_CASE("gemm plan: column-major C maps each operand as stored", "[cuda][gemm_plan]") {
  const auto p = cuda::plan_gemm(dense(DLK_COL_MAJOR, DLK_NO_TRANSPOSE, DLK_TRANSPOSE, 5, 7, 3, 9, 11, 13), false);
  CHECK(p.unsupported.empty());
  CHECK(p.route == GemmRoute::lt_direct);
  CHECK_FALSE(p.swapped);
  CHECK((p.m == 5 && p.n == 7 && p.k == 3));
  check_matrix(p.a, false, 5, 3, 9);   // A: 5 x 3 stored, op N
  check_matrix(p.b, true, 7, 3, 11);   // B^T stored 7 x 3, op T
  check_matrix(p.c, false, 5, 7, 13);
  CHECK(p.compute == GemmCompute::f32);
}

TEST_CASE("gemm plan: row-major C is computed as C^T = B^T A^T", "[cuda][gemm_plan]") {
  const auto p = cuda::plan_gemm(dense(DLK_ROW_MAJOR, DLK_NO_TRANSPOSE, DLK_NO_TRANSPOSE, 5, 7, 3, 4, 8, 10), false);
  CHECK(p.unsupported.empty());
  CHECK(p.swapped);
  CHECK((p.m == 7 && p.n == 5 && p.k == 3));
  check_matrix(p.a, false, 7, 3, 8);  // B row-major is B^T column-major
  check_matrix(p.b, false, 3, 5, 4);  // A row-major is A^T column-major
  check_matrix(p.c, false, 7, 5, 10);

  const auto t = cuda::plan_gemm(dense(DLK_ROW_MAJOR, DLK_TRANSPOSE, DLK_TRANSPOSE, 5, 7, 3, 6, 4, 10), false);
  check_matrix(t.a, true, 3, 7, 4);
  check_matrix(t.b, true, 5, 3, 6);
}

TEST_CASE("gemm plan: strided batch keeps each operand's batch stride", "[cuda][gemm_plan]") {
  auto g = dense(DLK_ROW_MAJOR, DLK_NO_TRANSPOSE, DLK_NO_TRANSPOSE, 4, 6, 5, 5, 6, 6);
  g.batch = 3;
  g.a.batch_stride = 20, g.b.batch_stride = 0, g.batch_stride_c = 24;
  const auto p = cuda::plan_gemm(g, false);
  CHECK(p.batch == 3);
  CHECK(p.a.batch_stride == 0);   // B, broadcast
  CHECK(p.b.batch_stride == 20);  // A
  CHECK(p.c.batch_stride == 24);
  g.batch = int64_t{INT_MAX} + 1;
  CHECK_THAT(cuda::plan_gemm(g, false).unsupported, Catch::Contains("batch_count"));
}

TEST_CASE("gemm plan: TF32 only for f32 and only when allowed", "[cuda][gemm_plan]") {
  const auto f32 = dense(DLK_ROW_MAJOR, DLK_NO_TRANSPOSE, DLK_NO_TRANSPOSE, 8, 8, 8, 8, 8, 8);
  CHECK(cuda::plan_gemm(f32, false).compute == GemmCompute::f32);
  CHECK(cuda::plan_gemm(f32, true).compute == GemmCompute::tf32);
  for (dlk_dtype t : {DLK_DTYPE_F16, DLK_DTYPE_BF16}) {
    const auto g = dense(DLK_ROW_MAJOR, DLK_NO_TRANSPOSE, DLK_NO_TRANSPOSE, 8, 8, 8, 8, 8, 8, t, t);
    CHECK(cuda::plan_gemm(g, true).compute == GemmCompute::f32);  // f32 accumulation
  }
}

TEST_CASE("gemm plan: a float operand with no unit stride is unsupported, saying why", "[cuda][gemm_plan]") {
  auto g = dense(DLK_COL_MAJOR, DLK_NO_TRANSPOSE, DLK_NO_TRANSPOSE, 4, 4, 4, 4, 4, 4);
  g.a.rs = 2, g.a.cs = 8;
  CHECK_THAT(cuda::plan_gemm(g, false).unsupported, Catch::Contains("neither stride"));
}

TEST_CASE("gemm plan: s8 in cuBLASLt's TN form with s32 C goes straight to cuBLASLt", "[cuda][gemm_plan]") {
  auto g = dense(DLK_COL_MAJOR, DLK_TRANSPOSE, DLK_NO_TRANSPOSE, 16, 8, 12, 12, 12, 16, DLK_DTYPE_S8,
                 DLK_DTYPE_S32);
  auto p = cuda::plan_gemm(g, false);
  CHECK(p.route == GemmRoute::lt_direct);
  CHECK(p.compute == GemmCompute::s32);
  check_matrix(p.a, true, 12, 16, 12);
  check_matrix(p.b, false, 12, 8, 12);
  CHECK(p.epilogue == Int8Epilogue::store_s32);
  g.beta = 1.0f;
  CHECK(cuda::plan_gemm(g, false).epilogue == Int8Epilogue::accumulate_s32);

  // Row-major with A plain and B transposed is the same TN problem once swapped.
  const auto r = cuda::plan_gemm(dense(DLK_ROW_MAJOR, DLK_NO_TRANSPOSE, DLK_TRANSPOSE, 8, 16, 12, 12, 12, 16,
                                       DLK_DTYPE_S8, DLK_DTYPE_S32),
                                 false);
  CHECK(r.route == GemmRoute::lt_direct);
  CHECK(r.swapped);
}

TEST_CASE("gemm plan: every other integer GEMM is staged, with its zero-point offset and epilogue",
          "[cuda][gemm_plan]") {
  const auto tn = [](dlk_dtype a, dlk_dtype c, int64_t ld = 12) {
    return dense(DLK_COL_MAJOR, DLK_TRANSPOSE, DLK_NO_TRANSPOSE, 16, 8, 12, ld, ld, 16, a, c);
  };
  struct Case {
    const char *what;
    core::GemmArgs g;
    int32_t a_offset;
    Int8Epilogue epilogue;
  };
  auto with = [](core::GemmArgs g, auto edit) {
    edit(g);
    return g;
  };
  const Case cases[] = {
      {"u8 A, zero point 3", with(tn(DLK_DTYPE_U8, DLK_DTYPE_S32), [](auto &g) { g.a_zero_point = 3; }), 125,
       Int8Epilogue::store_s32},
      {"s8 A, zero point -5", with(tn(DLK_DTYPE_S8, DLK_DTYPE_S32), [](auto &g) { g.a_zero_point = -5; }), 5,
       Int8Epilogue::store_s32},
      {"ld not a multiple of 4", tn(DLK_DTYPE_S8, DLK_DTYPE_S32, 13), 0, Int8Epilogue::store_s32},
      {"k not a multiple of 4", with(tn(DLK_DTYPE_S8, DLK_DTYPE_S32), [](auto &g) { g.k = 10; }), 0,
       Int8Epilogue::store_s32},
      {"m not a multiple of 4", with(tn(DLK_DTYPE_S8, DLK_DTYPE_S32), [](auto &g) { g.m = 15; }), 0,
       Int8Epilogue::store_s32},
      {"A not transposed", dense(DLK_COL_MAJOR, DLK_NO_TRANSPOSE, DLK_NO_TRANSPOSE, 16, 8, 12, 16, 12, 16,
                                 DLK_DTYPE_S8, DLK_DTYPE_S32),
       0, Int8Epilogue::store_s32},
      {"C misaligned", with(tn(DLK_DTYPE_S8, DLK_DTYPE_S32), [](auto &g) { g.c = reinterpret_cast<void *>(0x30002); }),
       0, Int8Epilogue::store_s32},
      {"K = 0", with(tn(DLK_DTYPE_S8, DLK_DTYPE_S32), [](auto &g) { g.k = 0; }), 0, Int8Epilogue::store_s32},
      {"f32 C", tn(DLK_DTYPE_S8, DLK_DTYPE_F32), 0, Int8Epilogue::dequantize_f32},
      {"s8 C", tn(DLK_DTYPE_S8, DLK_DTYPE_S8), 0, Int8Epilogue::requantize_s8},
      {"u8 C", tn(DLK_DTYPE_U8, DLK_DTYPE_U8), 128, Int8Epilogue::requantize_u8},
  };
  for (const Case &c : cases) {
    INFO(c.what);
    const auto p = cuda::plan_gemm(c.g, false);
    CHECK(p.unsupported.empty());
    CHECK(p.route == GemmRoute::int8_staged);
    CHECK_FALSE(p.swapped);
    CHECK(p.a_offset == c.a_offset);
    CHECK(p.epilogue == c.epilogue);
    CHECK(p.k_padded == (c.g.k + 3) / 4 * 4);
    CHECK(p.m_padded == (c.g.m + 3) / 4 * 4);
    CHECK(p.m == p.m_padded);
    // cuBLASLt's TN form on the packed buffers, every size a multiple of 4.
    check_matrix(p.a, true, p.k_padded, p.m_padded, p.k_padded);
    check_matrix(p.b, false, p.k_padded, c.g.n, p.k_padded);
    check_matrix(p.c, false, p.m_padded, c.g.n, p.m_padded);
    CHECK(p.a.dtype == DLK_DTYPE_S8);
    CHECK(p.c.dtype == DLK_DTYPE_S32);
  }
}

TEST_CASE("gemm plan: pointer alignment is the largest power of two up to 256", "[cuda][gemm_plan]") {
  CHECK(cuda::pointer_alignment(address(0)) == 256);
  CHECK(cuda::pointer_alignment(address(0x1000)) == 256);
  CHECK(cuda::pointer_alignment(address(0x1080)) == 128);
  CHECK(cuda::pointer_alignment(address(0x1004)) == 4);
  CHECK(cuda::pointer_alignment(address(0x1001)) == 1);
}

TEST_CASE("gemm plan: the heuristic cache key changes with everything cuBLASLt's answer depends on",
          "[cuda][gemm_plan]") {
  const auto g = dense(DLK_ROW_MAJOR, DLK_NO_TRANSPOSE, DLK_NO_TRANSPOSE, 64, 32, 16, 16, 32, 32);
  const auto key = [](const core::GemmArgs &args, bool tf32 = false) {
    const auto p = cuda::plan_gemm(args, tf32);
    return cuda::gemm_key(p, args, p.swapped ? args.b.ptr : args.a.ptr, p.swapped ? args.a.ptr : args.b.ptr,
                          args.c);
  };
  const cuda::GemmKey base = key(g);
  CHECK(base == key(g));
  CHECK(cuda::GemmKeyHash{}(base) == cuda::GemmKeyHash{}(key(g)));
  // Other pointers with the same alignment share the entry.
  auto moved = g;
  moved.a.ptr = address(0x50000);
  CHECK(key(moved) == base);

  struct Change {
    const char *what;
    void (*edit)(core::GemmArgs &);
  };
  const Change changes[] = {
      {"m", [](core::GemmArgs &a) { a.m = 65; }},
      {"k", [](core::GemmArgs &a) { a.k = 15; }},
      {"lda", [](core::GemmArgs &a) { a.a.rs = 20; }},
      {"ldc", [](core::GemmArgs &a) { a.rs_c = 40; }},
      {"transpose", [](core::GemmArgs &a) { a.b.rs = 1, a.b.cs = 16; }},
      {"batch", [](core::GemmArgs &a) { a.batch = 2, a.batch_stride_c = 2048; }},
      {"beta", [](core::GemmArgs &a) { a.beta = 1.0f; }},
      {"alignment of A", [](core::GemmArgs &a) { a.a.ptr = address(0x10004); }},
      {"dtype", [](core::GemmArgs &a) { a.a.dtype = a.b.dtype = DLK_DTYPE_BF16; }},
  };
  for (const Change &c : changes) {
    INFO("changed: " << c.what);
    auto changed = g;
    c.edit(changed);
    CHECK_FALSE(key(changed) == base);
  }
  CHECK_FALSE(key(g, true) == base);  // TF32
}

TEST_CASE("gemm plan: the staged route's key is the packed problem's (K padded, beta 0, own buffers)",
          "[cuda][gemm_plan]") {
  auto g = dense(DLK_ROW_MAJOR, DLK_NO_TRANSPOSE, DLK_NO_TRANSPOSE, 15, 8, 10, 10, 8, 8, DLK_DTYPE_U8,
                 DLK_DTYPE_S8);
  g.beta = 1.0f;
  const auto p = cuda::plan_gemm(g, false);
  REQUIRE(p.route == GemmRoute::int8_staged);
  const auto key = cuda::gemm_key(p, g, address(0x100000), address(0x200000), address(0x300000));
  CHECK(key.k == 12);
  CHECK(key.m == 16);
  CHECK(key.c.ld == 16);
  CHECK_FALSE(key.beta_nonzero);
  CHECK(key.d_type == DLK_DTYPE_S32);
  CHECK((key.align_a == 256 && key.align_b == 256 && key.align_c == 256));
}
