// Every rule of dlk_gemm (core/validate_gemm.cpp), each broken alone from a valid
// descriptor: the call returns DLK_STATUS_INVALID_ARGUMENT, names the argument,
// and leaves every buffer as it was.
#include <cstdint>
#include <limits>
#include <vector>

#include "tests/core/validation_support.hpp"

namespace {

using namespace dlk_test;

constexpr int64_t kHuge = int64_t{1} << 40;  // two of these multiplied overflow int64

// One dlk_gemm call: a descriptor, buffers full of the sentinel, and the pointers
// passed, which a rule may move (to NULL, or onto another buffer).
struct GemmCall {
  dlk_gemm_desc desc{};
  const dlk_gemm_desc *desc_arg = &desc;
  float scales[8] = {0.5f, 0.25f, 2.0f, 1.0f, 0.5f, 0.5f, 0.5f, 0.5f};
  SentinelBuffer a, b, c;
  const void *a_arg = a.data();
  const void *b_arg = b.data();
  void *c_arg = c.data();

  dlk_status run(dlk_context_t context) const { return dlk_gemm(context, desc_arg, a_arg, b_arg, c_arg); }
  bool untouched() const { return a.untouched() && b.untouched() && c.untouched(); }
};

using Edit = void (*)(GemmCall &);

// Valid starting points, m = 4, n = 5, k = 3, with the tightest leading
// dimensions, so that one less breaks the rule.
void f32_row(GemmCall &g) {
  dlk_gemm_desc_init(&g.desc, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 4, 5, 3);
}
void f32_row_transposed(GemmCall &g) {
  f32_row(g);
  g.desc.trans_a = g.desc.trans_b = DLK_TRANSPOSE;
  g.desc.lda = 4;  // A stored k x m
  g.desc.ldb = 3;  // B stored n x k
}
void f32_col(GemmCall &g) {
  f32_row(g);
  g.desc.layout = DLK_COL_MAJOR;
  g.desc.lda = 4, g.desc.ldb = 3, g.desc.ldc = 4;  // the rows of A, B, C
}
void f32_col_transposed(GemmCall &g) {
  f32_col(g);
  g.desc.trans_a = g.desc.trans_b = DLK_TRANSPOSE;
  g.desc.lda = 3, g.desc.ldb = 5;
}
void f32_batched(GemmCall &g) {
  f32_row(g);
  g.desc.batch_count = 3;
  g.desc.stride_a = 12, g.desc.stride_b = 15, g.desc.stride_c = 20;
}
void u8_requantized(GemmCall &g) {
  dlk_gemm_desc_init(&g.desc, DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_U8, 4, 5, 3);
  g.desc.a_zero_point = 128, g.desc.c_zero_point = 3;
  g.desc.beta = 1.0f;
  g.desc.scale_mode = DLK_SCALE_PER_CHANNEL, g.desc.scales = g.scales;
}
void s8_dequantized(GemmCall &g) {
  dlk_gemm_desc_init(&g.desc, DLK_DTYPE_S8, DLK_DTYPE_S8, DLK_DTYPE_F32, 4, 5, 3);
  g.desc.a_zero_point = -5;
  g.desc.scale_mode = DLK_SCALE_PER_TENSOR, g.desc.scales = g.scales;
}
void u8_s32(GemmCall &g) {
  dlk_gemm_desc_init(&g.desc, DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_S32, 4, 5, 3);
  g.desc.a_zero_point = 7;
  g.desc.beta = 1.0f;
}

struct Base {
  const char *name;
  Edit setup;
};
const std::vector<Base> kBases = {
    {"f32 row-major", f32_row},          {"f32 row-major transposed", f32_row_transposed},
    {"f32 column-major", f32_col},       {"f32 column-major transposed", f32_col_transposed},
    {"f32 strided batch", f32_batched},  {"u8:s8:u8 per-channel scales", u8_requantized},
    {"s8:s8:f32 per-tensor scale", s8_dequantized}, {"u8:s8:s32", u8_s32},
};

struct Rule {
  const char *broken;  // what the edit breaks
  Edit base;
  Edit edit;
  const char *argument;
};

const std::vector<Rule> &gemm_rules() {
  static const std::vector<Rule> rules = {
      {"desc is NULL", f32_row, [](GemmCall &g) { g.desc_arg = nullptr; }, "desc"},
      // Enums outside their values.
      {"layout is 2", f32_row, [](GemmCall &g) { store_int(g.desc.layout, 2); }, "layout"},
      {"layout is -1", f32_row, [](GemmCall &g) { store_int(g.desc.layout, -1); }, "layout"},
      {"trans_a is 2", f32_row, [](GemmCall &g) { store_int(g.desc.trans_a, 2); }, "trans_a"},
      {"trans_b is -1", f32_row, [](GemmCall &g) { store_int(g.desc.trans_b, -1); }, "trans_b"},
      {"a_type is 0", f32_row, [](GemmCall &g) { store_int(g.desc.a_type, 0); }, "a_type"},
      {"b_type is 99", f32_row, [](GemmCall &g) { store_int(g.desc.b_type, 99); }, "b_type"},
      {"c_type is -1", f32_row, [](GemmCall &g) { store_int(g.desc.c_type, -1); }, "c_type"},
      {"scale_mode is 3", u8_requantized, [](GemmCall &g) { store_int(g.desc.scale_mode, 3); }, "scale_mode"},
      // Sizes.
      {"m < 0", f32_row, [](GemmCall &g) { g.desc.m = -1; }, "m"},
      {"n < 0", f32_row, [](GemmCall &g) { g.desc.n = -1; }, "n"},
      {"k < 0", f32_row, [](GemmCall &g) { g.desc.k = -1; }, "k"},
      {"batch_count < 0", f32_row, [](GemmCall &g) { g.desc.batch_count = -1; }, "batch_count"},
      // Type combinations (a:b:c) that GEMM does not define.
      {"s32 A", f32_row, [](GemmCall &g) { g.desc.a_type = g.desc.b_type = g.desc.c_type = DLK_DTYPE_S32; }, "a_type"},
      {"f32:f16:f32", f32_row, [](GemmCall &g) { g.desc.b_type = DLK_DTYPE_F16; }, "b_type"},
      {"f32:f32:s32", f32_row, [](GemmCall &g) { g.desc.c_type = DLK_DTYPE_S32; }, "c_type"},
      {"f16:f16:bf16", f32_row,
       [](GemmCall &g) { g.desc.a_type = g.desc.b_type = DLK_DTYPE_F16, g.desc.c_type = DLK_DTYPE_BF16; }, "c_type"},
      {"bf16:f16:f32", f32_row,
       [](GemmCall &g) { g.desc.a_type = DLK_DTYPE_BF16, g.desc.b_type = DLK_DTYPE_F16; }, "b_type"},
      {"u8:u8:u8", u8_requantized, [](GemmCall &g) { g.desc.b_type = DLK_DTYPE_U8; }, "b_type"},
      {"u8:s8:f16", u8_requantized,
       [](GemmCall &g) { g.desc.c_type = DLK_DTYPE_F16, g.desc.c_zero_point = 0; }, "c_type"},
      // Leading dimensions: one below the tightest, for every layout and transpose.
      {"lda too small, row-major", f32_row, [](GemmCall &g) { --g.desc.lda; }, "lda"},
      {"ldb too small, row-major", f32_row, [](GemmCall &g) { --g.desc.ldb; }, "ldb"},
      {"ldc too small, row-major", f32_row, [](GemmCall &g) { --g.desc.ldc; }, "ldc"},
      {"lda too small, row-major transposed", f32_row_transposed, [](GemmCall &g) { --g.desc.lda; }, "lda"},
      {"ldb too small, row-major transposed", f32_row_transposed, [](GemmCall &g) { --g.desc.ldb; }, "ldb"},
      {"ldc too small, row-major transposed", f32_row_transposed, [](GemmCall &g) { --g.desc.ldc; }, "ldc"},
      {"lda too small, column-major", f32_col, [](GemmCall &g) { --g.desc.lda; }, "lda"},
      {"ldb too small, column-major", f32_col, [](GemmCall &g) { --g.desc.ldb; }, "ldb"},
      {"ldc too small, column-major", f32_col, [](GemmCall &g) { --g.desc.ldc; }, "ldc"},
      {"lda too small, column-major transposed", f32_col_transposed, [](GemmCall &g) { --g.desc.lda; }, "lda"},
      {"ldb too small, column-major transposed", f32_col_transposed, [](GemmCall &g) { --g.desc.ldb; }, "ldb"},
      {"ldc too small, column-major transposed", f32_col_transposed, [](GemmCall &g) { --g.desc.ldc; }, "ldc"},
      {"lda 0 for an empty A (must be >= 1)", f32_row, [](GemmCall &g) { g.desc.k = 0, g.desc.lda = 0; }, "lda"},
      // Strided batch.
      {"stride_a < 0", f32_batched, [](GemmCall &g) { g.desc.stride_a = -1; }, "stride_a"},
      {"stride_b < 0", f32_batched, [](GemmCall &g) { g.desc.stride_b = -1; }, "stride_b"},
      {"C matrices of a batch overlap", f32_batched, [](GemmCall &g) { --g.desc.stride_c; }, "stride_c"},
      {"C matrices overlap, column-major", f32_batched,
       [](GemmCall &g) { g.desc.layout = DLK_COL_MAJOR, g.desc.lda = 4, g.desc.ldb = 3, g.desc.ldc = 4,
                         g.desc.stride_c = 19; }, "stride_c"},
      // Zero points.
      {"a_zero_point for f32 A", f32_row, [](GemmCall &g) { g.desc.a_zero_point = 1; }, "a_zero_point"},
      {"a_zero_point 256 for u8 A", u8_requantized, [](GemmCall &g) { g.desc.a_zero_point = 256; }, "a_zero_point"},
      {"a_zero_point -1 for u8 A", u8_requantized, [](GemmCall &g) { g.desc.a_zero_point = -1; }, "a_zero_point"},
      {"a_zero_point 128 for s8 A", s8_dequantized, [](GemmCall &g) { g.desc.a_zero_point = 128; }, "a_zero_point"},
      {"a_zero_point -129 for s8 A", s8_dequantized, [](GemmCall &g) { g.desc.a_zero_point = -129; }, "a_zero_point"},
      {"c_zero_point 256 for u8 C", u8_requantized, [](GemmCall &g) { g.desc.c_zero_point = 256; }, "c_zero_point"},
      {"c_zero_point -129 for s8 C", u8_requantized,
       [](GemmCall &g) { g.desc.c_type = DLK_DTYPE_S8, g.desc.c_zero_point = -129; }, "c_zero_point"},
      {"c_zero_point for f32 C", f32_row, [](GemmCall &g) { g.desc.c_zero_point = 1; }, "c_zero_point"},
      {"c_zero_point for f32 C of int8 GEMM", s8_dequantized, [](GemmCall &g) { g.desc.c_zero_point = 2; }, "c_zero_point"},
      {"c_zero_point for s32 C", u8_s32, [](GemmCall &g) { g.desc.c_zero_point = 1; }, "c_zero_point"},
      // s32 C takes the accumulator as it is.
      {"alpha 2 for s32 C", u8_s32, [](GemmCall &g) { g.desc.alpha = 2.0f; }, "alpha"},
      {"beta 0.5 for s32 C", u8_s32, [](GemmCall &g) { g.desc.beta = 0.5f; }, "beta"},
      {"scales for s32 C", u8_s32,
       [](GemmCall &g) { g.desc.scale_mode = DLK_SCALE_PER_TENSOR, g.desc.scales = g.scales; }, "scale_mode"},
      // Scales.
      {"scales for f32 GEMM", f32_row,
       [](GemmCall &g) { g.desc.scale_mode = DLK_SCALE_PER_TENSOR, g.desc.scales = g.scales; }, "scale_mode"},
      {"per-tensor scales NULL", s8_dequantized, [](GemmCall &g) { g.desc.scales = nullptr; }, "scales"},
      {"per-channel scales NULL", u8_requantized, [](GemmCall &g) { g.desc.scales = nullptr; }, "scales"},
      {"a per-channel scale is NaN", u8_requantized,
       [](GemmCall &g) { g.scales[4] = std::numeric_limits<float>::quiet_NaN(); }, "scales"},
      {"the per-tensor scale is infinite", s8_dequantized,
       [](GemmCall &g) { g.scales[0] = std::numeric_limits<float>::infinity(); }, "scales"},
      // NULL tensors.
      {"a is NULL", f32_row, [](GemmCall &g) { g.a_arg = nullptr; }, "a"},
      {"b is NULL", f32_row, [](GemmCall &g) { g.b_arg = nullptr; }, "b"},
      {"c is NULL", f32_row, [](GemmCall &g) { g.c_arg = nullptr; }, "c"},
      {"c is NULL with k == 0 (C = beta * C still writes)", f32_row,
       [](GemmCall &g) { g.desc.k = 0, g.c_arg = nullptr; }, "c"},
      // The output aliases an input.
      {"c is a", f32_row, [](GemmCall &g) { g.c_arg = g.a.data(); }, "c"},
      {"c is b", f32_row, [](GemmCall &g) { g.c_arg = g.b.data(); }, "c"},
      {"c starts inside a", f32_row, [](GemmCall &g) { g.c_arg = g.a.data() + 40; }, "c"},
      {"a starts inside c", f32_row, [](GemmCall &g) { g.a_arg = g.c.data() + 40; }, "c"},
      {"c's last matrix of a batch reaches b", f32_batched,
       [](GemmCall &g) { g.b_arg = g.c.data() + (2 * 20 + 19) * sizeof(float); }, "c"},
      {"c is b, int8", u8_requantized, [](GemmCall &g) { g.c_arg = g.b.data(); }, "c"},
      {"per-channel scales inside c", u8_requantized,
       [](GemmCall &g) { g.desc.scales = reinterpret_cast<const float *>(g.c.data() + 8); }, "c"},
      {"the per-tensor scale inside c", s8_dequantized,
       [](GemmCall &g) { g.desc.scales = reinterpret_cast<const float *>(g.c.data() + 76); }, "c"},
      // Size products that overflow 64 bits.
      {"A's extent overflows", f32_row,
       [](GemmCall &g) { g.desc.m = g.desc.k = g.desc.lda = kHuge; }, "a"},
      {"B's extent overflows", f32_row,
       [](GemmCall &g) { g.desc.k = g.desc.n = g.desc.lda = g.desc.ldb = g.desc.ldc = kHuge; }, "b"},
      {"C's extent overflows", f32_row,
       [](GemmCall &g) { g.desc.k = 0, g.desc.m = g.desc.n = g.desc.ldb = g.desc.ldc = kHuge; }, "c"},
      {"C's bytes overflow", f32_row,
       [](GemmCall &g) { g.desc.m = 1, g.desc.k = 0, g.desc.n = g.desc.ldb = g.desc.ldc = int64_t{1} << 62; }, "c"},
      {"C's extent overflows before n per-channel scales are read", u8_requantized,
       [](GemmCall &g) { g.desc.m = 2, g.desc.k = 0, g.desc.n = g.desc.ldb = g.desc.ldc = int64_t{1} << 62; }, "c"},
      {"batch_count * stride_a overflows", f32_batched,
       [](GemmCall &g) { g.desc.batch_count = g.desc.stride_a = kHuge; }, "a"},
      {"the extent of one C of a batch overflows", f32_batched,
       [](GemmCall &g) { g.desc.m = g.desc.ldc = kHuge; }, "ldc"},
  };
  return rules;
}

}  // namespace

TEST_CASE("dlk_gemm: every starting descriptor is valid", "[validation][gemm]") {
  TestContext context;
  for (const Base &base : kBases) {
    INFO("base: " << base.name);
    GemmCall call;
    base.setup(call);
    // A failure first, so the success must clear the message.
    dlk_gemm(context.get(), nullptr, nullptr, nullptr, nullptr);
    expect_success(call.run(context.get()));
  }
}

TEST_CASE("dlk_gemm: each rule broken alone is rejected, naming its argument", "[validation][gemm]") {
  TestContext context;
  for (const Rule &rule : gemm_rules()) {
    INFO("broken: " << rule.broken);
    GemmCall call;
    rule.base(call);
    rule.edit(call);
    expect_rejected(call.run(context.get()), "dlk_gemm", rule.argument);
    CHECK(call.untouched());
  }
}

TEST_CASE("dlk_gemm: a NULL context is rejected before the descriptor is read", "[validation][gemm]") {
  GemmCall call;
  f32_row(call);
  expect_rejected(call.run(nullptr), "dlk_gemm", "context");
  CHECK(call.untouched());
}

TEST_CASE("dlk_gemm: empty problems succeed without touching memory", "[validation][gemm]") {
  TestContext context;
  const std::vector<Rule> empties = {
      {"m == 0", f32_row, [](GemmCall &g) { g.desc.m = 0; }, ""},
      {"n == 0", f32_row, [](GemmCall &g) { g.desc.n = 0, g.desc.ldb = g.desc.ldc = 1; }, ""},
      {"batch_count == 0", f32_batched, [](GemmCall &g) { g.desc.batch_count = 0; }, ""},
      {"m == 0, int8 with scales", u8_requantized, [](GemmCall &g) { g.desc.m = 0; }, ""},
      {"n == 0, column-major", f32_col, [](GemmCall &g) { g.desc.n = 0; }, ""},
      {"n == 0, per-channel scales NULL (an empty array)", u8_requantized,
       [](GemmCall &g) { g.desc.n = 0, g.desc.ldb = g.desc.ldc = 1, g.desc.scales = nullptr; }, ""},
  };
  for (const Rule &empty : empties) {
    INFO("empty: " << empty.broken);
    GemmCall with_buffers;
    empty.base(with_buffers);
    empty.edit(with_buffers);
    expect_success(with_buffers.run(context.get()));
    CHECK(with_buffers.untouched());

    GemmCall with_null;
    empty.base(with_null);
    empty.edit(with_null);
    with_null.a_arg = with_null.b_arg = with_null.c_arg = nullptr;
    expect_success(with_null.run(context.get()));
  }
}

TEST_CASE("dlk_gemm: k == 0 reads neither A nor B", "[validation][gemm]") {
  TestContext context;
  GemmCall call;
  f32_row(call);
  call.desc.k = 0;
  call.desc.lda = 1;
  call.a_arg = call.b_arg = nullptr;
  expect_success(call.run(context.get()));
}

// fuzz_gemm found the CPU backend forming B's address from a batch stride that
// k == 0 leaves unchecked (signed overflow): any stride is fine when k == 0.
TEST_CASE("dlk_gemm: k == 0 with batch strides at INT64_MAX forms no address", "[validation][gemm]") {
  TestContext context;
  GemmCall call;
  f32_row(call);
  call.desc.k = 0;
  call.desc.lda = 1;
  call.desc.batch_count = 2;
  call.desc.stride_a = call.desc.stride_b = INT64_MAX;
  call.desc.stride_c = call.desc.m * call.desc.ldc;
  call.a_arg = call.b_arg = nullptr;
  expect_success(call.run(context.get()));
}
