// Every rule of the pool2d calls (core/validate_pool2d.cpp), each broken alone from
// a valid descriptor: the call returns DLK_STATUS_INVALID_ARGUMENT, names the
// argument, and leaves every buffer as it was. The descriptor rules hold for all
// three calls that take a dlk_pool2d_desc.
#include <cstdint>
#include <limits>
#include <vector>

#include "tests/core/validation_support.hpp"

namespace {

using namespace dlk_test;

enum class Call { forward, backward, output_shape };

const char *call_name(Call call) {
  switch (call) {
    case Call::forward: return "dlk_pool2d_forward";
    case Call::backward: return "dlk_pool2d_backward";
    case Call::output_shape: return "dlk_pool2d_output_shape";
  }
  return "";
}

const std::vector<Call> kAllCalls = {Call::forward, Call::backward, Call::output_shape};
// Integer types are forward-only; output_shape validates as the forward pass.
const std::vector<Call> kForwardCalls = {Call::forward, Call::output_shape};

constexpr int64_t kNoShape = -7;  // what oh and ow hold until a call writes them
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// One call: a descriptor, a buffer per tensor full of the sentinel, and the
// pointers passed, which a rule may move. Backward reads dst as diff_dst and
// writes src as diff_src.
struct PoolCall {
  dlk_pool2d_desc desc{};
  const dlk_pool2d_desc *desc_arg = &desc;
  SentinelBuffer src, dst, argmax;
  unsigned char *src_arg = src.data();
  unsigned char *dst_arg = dst.data();
  unsigned char *argmax_arg = argmax.data();
  int64_t oh = kNoShape, ow = kNoShape;
  int64_t *oh_arg = &oh, *ow_arg = &ow;

  dlk_status run(dlk_context_t context, Call call) {
    int32_t *argmax_s32 = reinterpret_cast<int32_t *>(argmax_arg);
    switch (call) {
      case Call::forward: return dlk_pool2d_forward(context, desc_arg, src_arg, dst_arg, argmax_s32);
      case Call::backward: return dlk_pool2d_backward(context, desc_arg, dst_arg, argmax_s32, src_arg);
      case Call::output_shape: return dlk_pool2d_output_shape(desc_arg, oh_arg, ow_arg);
    }
    return DLK_STATUS_INTERNAL_ERROR;
  }
  bool untouched() const {
    return src.untouched() && dst.untouched() && argmax.untouched() && oh == kNoShape && ow == kNoShape;
  }
};

using Edit = void (*)(PoolCall &);

// Valid starting points. Max: 2 x 3 x 7 x 6, 3 x 2 windows, stride 2, padding 1:
// a 4 x 4 output, with argmax.
void max_f32(PoolCall &g) {
  dlk_pool2d_desc_init(&g.desc, DLK_POOL_MAX, DLK_DTYPE_F32, 2, 3, 7, 6, 3, 2);
  g.desc.stride_h = g.desc.stride_w = 2;
  g.desc.pad_h = g.desc.pad_w = 1;
}
void max_bf16_without_argmax(PoolCall &g) {
  dlk_pool2d_desc_init(&g.desc, DLK_POOL_MAX, DLK_DTYPE_BF16, 2, 3, 7, 6, 3, 2);
  g.argmax_arg = nullptr;  // allowed when no backward pass follows
}
void avg_nhwc(PoolCall &g) {
  dlk_pool2d_desc_init(&g.desc, DLK_POOL_AVG_EXCLUDE_PADDING, DLK_DTYPE_F32, 2, 3, 7, 6, 3, 3);
  g.desc.format = DLK_FORMAT_NHWC;
  g.desc.stride_h = g.desc.stride_w = 1;
  g.desc.pad_h = g.desc.pad_w = 1;
  g.argmax_arg = nullptr;
}
void avg_u8(PoolCall &g) {
  dlk_pool2d_desc_init(&g.desc, DLK_POOL_AVG_INCLUDE_PADDING, DLK_DTYPE_U8, 2, 3, 7, 6, 2, 2);
  g.argmax_arg = nullptr;
}
void max_s8(PoolCall &g) { dlk_pool2d_desc_init(&g.desc, DLK_POOL_MAX, DLK_DTYPE_S8, 2, 3, 7, 6, 2, 2); }
// One 1 x 1 plane and a 1 x 1 window: every size comes from the field a rule enlarges.
void max_unit(PoolCall &g) { dlk_pool2d_desc_init(&g.desc, DLK_POOL_MAX, DLK_DTYPE_F32, 1, 1, 1, 1, 1, 1); }

struct Base {
  const char *name;
  Edit setup;
  std::vector<Call> calls;
};
const std::vector<Base> kBases = {
    {"f32 max, stride, padding", max_f32, kAllCalls},
    {"bf16 max without argmax", max_bf16_without_argmax, kForwardCalls},
    {"f32 average NHWC", avg_nhwc, kAllCalls},
    {"u8 average", avg_u8, kForwardCalls},
    {"s8 max", max_s8, kForwardCalls},
    {"f32 1x1", max_unit, kAllCalls},
};

struct Rule {
  const char *broken;
  Edit base;
  Edit edit;
  const char *argument;
  std::vector<Call> calls;
};

const std::vector<Rule> &descriptor_rules() {
  static const std::vector<Rule> rules = {
      {"desc is NULL", max_f32, [](PoolCall &g) { g.desc_arg = nullptr; }, "desc", kAllCalls},
      // Enums outside their values.
      {"format is 2", max_f32, [](PoolCall &g) { store_int(g.desc.format, 2); }, "format", kAllCalls},
      {"kind is 3", max_f32, [](PoolCall &g) { store_int(g.desc.kind, 3); }, "kind", kAllCalls},
      {"kind is -1", max_f32, [](PoolCall &g) { store_int(g.desc.kind, -1); }, "kind", kAllCalls},
      {"dtype is 0", max_f32, [](PoolCall &g) { store_int(g.desc.dtype, 0); }, "dtype", kAllCalls},
      {"dtype is 99", max_f32, [](PoolCall &g) { store_int(g.desc.dtype, 99); }, "dtype", kAllCalls},
      {"dtype is s32", max_f32, [](PoolCall &g) { g.desc.dtype = DLK_DTYPE_S32; }, "dtype", kAllCalls},
      {"int8 on the backward pass", max_s8, [](PoolCall &) {}, "dtype", {Call::backward}},
      // Sizes.
      {"n < 0", max_f32, [](PoolCall &g) { g.desc.n = -1; }, "n", kAllCalls},
      {"c < 1", max_f32, [](PoolCall &g) { g.desc.c = 0; }, "c", kAllCalls},
      {"h < 1", max_f32, [](PoolCall &g) { g.desc.h = 0; }, "h", kAllCalls},
      {"w < 1", max_f32, [](PoolCall &g) { g.desc.w = -3; }, "w", kAllCalls},
      {"kh < 1", max_f32, [](PoolCall &g) { g.desc.kh = 0; }, "kh", kAllCalls},
      {"kw < 1", max_f32, [](PoolCall &g) { g.desc.kw = 0; }, "kw", kAllCalls},
      {"stride_h < 1", max_f32, [](PoolCall &g) { g.desc.stride_h = 0; }, "stride_h", kAllCalls},
      {"stride_w < 1", max_f32, [](PoolCall &g) { g.desc.stride_w = -1; }, "stride_w", kAllCalls},
      {"pad_h < 0", max_f32, [](PoolCall &g) { g.desc.pad_h = -1; }, "pad_h", kAllCalls},
      {"pad_w < 0", max_f32, [](PoolCall &g) { g.desc.pad_w = -1; }, "pad_w", kAllCalls},
      // Every window must hold an image element, and fit the padded input.
      {"pad_h > kh / 2", max_f32, [](PoolCall &g) { g.desc.pad_h = 2; }, "pad_h", kAllCalls},
      {"pad_w > kw / 2", max_f32, [](PoolCall &g) { g.desc.pad_w = 2; }, "pad_w", kAllCalls},
      {"kh larger than the padded input", max_f32, [](PoolCall &g) { g.desc.kh = 10; }, "kh", kAllCalls},
      {"kw larger than the padded input", max_f32, [](PoolCall &g) { g.desc.kw = 9; }, "kw", kAllCalls},
      // Sizes that overflow.
      {"h * w beyond the int32 argmax index", max_unit,
       [](PoolCall &g) { g.desc.h = g.desc.w = int64_t{1} << 16; }, "h", kAllCalls},
      {"h + 2 * pad_h overflows", max_f32,
       [](PoolCall &g) { g.desc.kh = kMax, g.desc.pad_h = kMax / 2; }, "pad_h", kAllCalls},
      {"w + 2 * pad_w overflows", max_f32,
       [](PoolCall &g) { g.desc.kw = kMax, g.desc.pad_w = kMax / 2; }, "pad_w", kAllCalls},
      {"kh * kw overflows", max_unit,
       [](PoolCall &g) {
         g.desc.kh = g.desc.kw = (int64_t{1} << 62) + 1;
         g.desc.pad_h = g.desc.pad_w = int64_t{1} << 61;
       }, "kw", kAllCalls},
      {"n * c * h * w overflows", max_unit, [](PoolCall &g) { g.desc.n = g.desc.c = int64_t{1} << 31; }, "n", kAllCalls},
      {"c alone overflows the bytes of src", max_unit, [](PoolCall &g) { g.desc.c = int64_t{1} << 62; }, "c", kAllCalls},
  };
  return rules;
}

struct PointerRule {
  const char *broken;
  Call call;
  Edit base;
  Edit edit;
  const char *argument;
};

const std::vector<PointerRule> &pointer_rules() {
  static const std::vector<PointerRule> rules = {
      {"src is NULL", Call::forward, max_f32, [](PoolCall &g) { g.src_arg = nullptr; }, "src"},
      {"dst is NULL", Call::forward, max_f32, [](PoolCall &g) { g.dst_arg = nullptr; }, "dst"},
      {"argmax for average pooling", Call::forward, avg_nhwc, [](PoolCall &g) { g.argmax_arg = g.argmax.data(); }, "argmax"},
      {"dst is src", Call::forward, max_f32, [](PoolCall &g) { g.dst_arg = g.src.data(); }, "dst"},
      {"dst starts inside src", Call::forward, max_f32, [](PoolCall &g) { g.dst_arg = g.src.data() + 500; }, "dst"},
      {"argmax is src", Call::forward, max_f32, [](PoolCall &g) { g.argmax_arg = g.src.data(); }, "argmax"},
      {"argmax starts inside dst", Call::forward, max_f32, [](PoolCall &g) { g.argmax_arg = g.dst.data() + 4; }, "argmax"},
      {"argmax is NULL for max pooling", Call::backward, max_f32, [](PoolCall &g) { g.argmax_arg = nullptr; }, "argmax"},
      {"argmax for average pooling", Call::backward, avg_nhwc, [](PoolCall &g) { g.argmax_arg = g.argmax.data(); }, "argmax"},
      {"diff_src is NULL", Call::backward, max_f32, [](PoolCall &g) { g.src_arg = nullptr; }, "diff_src"},
      {"diff_dst is NULL", Call::backward, max_f32, [](PoolCall &g) { g.dst_arg = nullptr; }, "diff_dst"},
      {"diff_src is diff_dst", Call::backward, max_f32, [](PoolCall &g) { g.src_arg = g.dst.data(); }, "diff_src"},
      {"diff_src is argmax", Call::backward, max_f32, [](PoolCall &g) { g.src_arg = g.argmax.data(); }, "diff_src"},
      {"oh is NULL", Call::output_shape, max_f32, [](PoolCall &g) { g.oh_arg = nullptr; }, "oh"},
      {"ow is NULL", Call::output_shape, max_f32, [](PoolCall &g) { g.ow_arg = nullptr; }, "ow"},
  };
  return rules;
}

}  // namespace

TEST_CASE("pool2d: every starting descriptor is valid for its calls", "[validation][pool2d]") {
  TestContext context;
  for (const Base &base : kBases) {
    for (Call call : base.calls) {
      INFO("base: " << base.name << ", call: " << call_name(call));
      PoolCall args;
      base.setup(args);
      // Max pooling's backward pass routes through the argmax of a forward pass.
      if (call == Call::backward && args.argmax_arg)
        REQUIRE(args.run(context.get(), Call::forward) == DLK_STATUS_SUCCESS);
      dlk_pool2d_output_shape(nullptr, nullptr, nullptr);  // leaves a message to clear
      expect_success(args.run(context.get(), call));
    }
  }
}

TEST_CASE("pool2d: dlk_pool2d_output_shape gives the output extent", "[validation][pool2d]") {
  PoolCall args;
  max_f32(args);
  expect_success(args.run(nullptr, Call::output_shape));
  CHECK(args.oh == 4);  // (7 + 2 - 3) / 2 + 1
  CHECK(args.ow == 4);  // (6 + 2 - 2) / 2 + 1
}

TEST_CASE("pool2d: each descriptor rule broken alone is rejected by every call, naming its argument",
          "[validation][pool2d]") {
  TestContext context;
  expect_rules_rejected_by_their_calls<PoolCall>(context.get(), descriptor_rules(), call_name);
}

TEST_CASE("pool2d: each tensor rule broken alone is rejected, naming its argument", "[validation][pool2d]") {
  TestContext context;
  for (const PointerRule &rule : pointer_rules())
    expect_rule_rejected<PoolCall>(context.get(), rule, rule.call, call_name);
}

TEST_CASE("pool2d: a NULL context is rejected by every op", "[validation][pool2d]") {
  for (Call call : {Call::forward, Call::backward}) {
    INFO("call: " << call_name(call));
    PoolCall args;
    max_f32(args);
    expect_rejected(args.run(nullptr, call), call_name(call), "context");
    CHECK(args.untouched());
  }
}

TEST_CASE("pool2d: an empty batch succeeds without touching memory", "[validation][pool2d]") {
  TestContext context;
  for (Call call : {Call::forward, Call::backward}) {
    INFO("call: " << call_name(call));
    PoolCall with_buffers;
    max_f32(with_buffers);
    with_buffers.desc.n = 0;
    expect_success(with_buffers.run(context.get(), call));
    CHECK(with_buffers.untouched());

    // Max pooling's backward needs no argmax when there is nothing to route.
    PoolCall with_null;
    max_f32(with_null);
    with_null.desc.n = 0;
    with_null.src_arg = with_null.dst_arg = with_null.argmax_arg = nullptr;
    expect_success(with_null.run(context.get(), call));
  }
}
