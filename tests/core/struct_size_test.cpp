// The size rule of the growable structs (dlk.h): the options and descriptors
// carry the caller's sizeof in struct_size, info and records get it with the call;
// the library writes no byte past it, refuses a size smaller than it knows, and
// accepts a larger one (a program built against a later dlk.h) while the fields it
// does not know are 0.
#include <cstring>
#include <vector>

#include "tests/core/validation_support.hpp"

namespace {

// A struct as a later dlk.h might make it: this one, then fields this library
// does not know, and a canary after the end.
template <class T>
struct Later {
  T known;
  unsigned char unknown[24];
  unsigned char canary[8];
};

template <class T>
void fill_canary(Later<T> &s) {
  std::memset(&s, 0xA5, sizeof s);
}

bool all(const unsigned char *p, size_t n, unsigned char value) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != value) return false;
  return true;
}

}  // namespace

TEST_CASE("the *_init functions write the caller's size and no byte past it", "[api][abi]") {
  SECTION("larger: this library's fields, zeros after, struct_size as given") {
    Later<dlk_gemm_desc> s;
    fill_canary(s);
    dlk_gemm_desc_init_sized(&s.known, sizeof s.known + sizeof s.unknown, DLK_DTYPE_F32,
                             DLK_DTYPE_F32, DLK_DTYPE_F32, 2, 3, 4);
    CHECK(s.known.struct_size == sizeof s.known + sizeof s.unknown);
    CHECK(s.known.m == 2);
    CHECK(all(s.unknown, sizeof s.unknown, 0));
    CHECK(all(s.canary, sizeof s.canary, 0xA5));
  }
  SECTION("smaller: only that many bytes") {
    Later<dlk_conv2d_desc> s;
    fill_canary(s);
    dlk_conv2d_desc_init_sized(&s.known, 16, DLK_DTYPE_F32, 1, 1, 1, 1, 1, 1, 1);
    CHECK(s.known.struct_size == 16);
    const auto *bytes = reinterpret_cast<const unsigned char *>(&s.known);
    CHECK(all(bytes + 16, sizeof s - 16, 0xA5));
  }
  SECTION("the inline init sets sizeof") {
    dlk_context_options o;
    dlk_context_options_init(&o);
    CHECK(o.struct_size == sizeof o);
    dlk_pool2d_desc p;
    dlk_pool2d_desc_init(&p, DLK_POOL_MAX, DLK_DTYPE_F32, 1, 1, 2, 2, 2, 2);
    CHECK(p.struct_size == sizeof p);
  }
}

TEST_CASE("a descriptor's struct_size is checked by every call that reads it", "[api][abi]") {
  const dlk_test::TestContext context;
  dlk_context_t ctx = context.get();
  float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {};

  SECTION("0 (not filled by dlk_gemm_desc_init) is invalid") {
    dlk_gemm_desc g;
    dlk_gemm_desc_init(&g, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 2, 2, 2);
    g.struct_size = 0;
    dlk_test::expect_rejected(dlk_gemm(ctx, &g, a, b, c), "dlk_gemm", "desc");
    CHECK(c[0] == 0.0f);
  }
  SECTION("larger with zeros past this library's fields runs") {
    Later<dlk_gemm_desc> s;
    std::memset(&s, 0, sizeof s);
    dlk_gemm_desc_init_sized(&s.known, sizeof s.known + sizeof s.unknown, DLK_DTYPE_F32,
                             DLK_DTYPE_F32, DLK_DTYPE_F32, 2, 2, 2);
    REQUIRE(dlk_gemm(ctx, &s.known, a, b, c) == DLK_STATUS_SUCCESS);
    CHECK(c[0] == 1.0f);
    CHECK(c[3] == 4.0f);
  }
  SECTION("larger with a field set that this library does not know is unsupported") {
    Later<dlk_gemm_desc> s;
    std::memset(&s, 0, sizeof s);
    dlk_gemm_desc_init_sized(&s.known, sizeof s.known + sizeof s.unknown, DLK_DTYPE_F32,
                             DLK_DTYPE_F32, DLK_DTYPE_F32, 2, 2, 2);
    s.unknown[5] = 1;
    const dlk_status status = dlk_gemm(ctx, &s.known, a, b, c);
    CHECK(dlk_test::status_name(status) == dlk_test::status_name(DLK_STATUS_UNSUPPORTED));
    CHECK_THAT(std::string(dlk_last_error()), Catch::Contains("struct_size"));
    CHECK(c[0] == 0.0f);
  }
  SECTION("conv2d and pool2d descriptors") {
    dlk_conv2d_desc conv;
    dlk_conv2d_desc_init(&conv, DLK_DTYPE_F32, 1, 1, 2, 2, 1, 1, 1);
    conv.struct_size = 8;
    int64_t oh = 0, ow = 0;
    dlk_test::expect_rejected(dlk_conv2d_output_shape(&conv, &oh, &ow), "dlk_conv2d_output_shape",
                              "desc");
    dlk_pool2d_desc pool;
    dlk_pool2d_desc_init(&pool, DLK_POOL_MAX, DLK_DTYPE_F32, 1, 1, 2, 2, 2, 2);
    pool.struct_size = sizeof pool - 1;
    dlk_test::expect_rejected(dlk_pool2d_output_shape(&pool, &oh, &ow), "dlk_pool2d_output_shape",
                              "desc");
  }
  SECTION("context options") {
    dlk_context_options o;
    dlk_context_options_init(&o);
    o.backend = "cpu";
    o.struct_size = 0;
    dlk_context_t other = nullptr;
    dlk_test::expect_rejected(dlk_context_create(&other, &o), "dlk_context_create", "options");
    CHECK(other == nullptr);
  }
}

TEST_CASE("info and records are written up to the caller's size", "[api][abi]") {
  const dlk_test::TestContext context;
  dlk_context_t ctx = context.get();
  SECTION("info: larger gets zeros past this library's fields, and no byte past the size") {
    Later<dlk_context_info> s;
    fill_canary(s);
    REQUIRE(dlk_context_get_info_sized(ctx, &s.known, sizeof s.known + sizeof s.unknown) ==
            DLK_STATUS_SUCCESS);
    CHECK(std::string(s.known.backend) == "cpu");
    CHECK(all(s.unknown, sizeof s.unknown, 0));
    CHECK(all(s.canary, sizeof s.canary, 0xA5));
  }
  SECTION("info: smaller than this library's is invalid, and nothing is written") {
    Later<dlk_context_info> s;
    fill_canary(s);
    dlk_test::expect_rejected(dlk_context_get_info_sized(ctx, &s.known, 8), "dlk_context_get_info",
                              "info");
    CHECK(all(reinterpret_cast<const unsigned char *>(&s), sizeof s, 0xA5));
  }
  SECTION("op record") {
    float a[1] = {2}, b[1] = {3}, c[1] = {0};
    dlk_gemm_desc g;
    dlk_gemm_desc_init(&g, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 1, 1, 1);
    REQUIRE(dlk_gemm(ctx, &g, a, b, c) == DLK_STATUS_SUCCESS);
    Later<dlk_op_record> s;
    fill_canary(s);
    REQUIRE(dlk_context_last_op_sized(ctx, &s.known, sizeof s.known + sizeof s.unknown) ==
            DLK_STATUS_SUCCESS);
    CHECK(s.known.op == DLK_OP_GEMM);
    CHECK(all(s.unknown, sizeof s.unknown, 0));
    CHECK(all(s.canary, sizeof s.canary, 0xA5));
    dlk_test::expect_rejected(dlk_context_last_op_sized(ctx, &s.known, 4), "dlk_context_last_op",
                              "record");
  }
}
