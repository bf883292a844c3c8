// Every rule of the conv2d calls (core/validate_conv2d.cpp), each broken alone from
// a valid descriptor: the call returns DLK_STATUS_INVALID_ARGUMENT, names the
// argument, and leaves every buffer as it was. The descriptor rules hold for all
// four calls that take a dlk_conv2d_desc.
#include <cstdint>
#include <limits>
#include <vector>

#include "tests/core/validation_support.hpp"

namespace {

using namespace dlk_test;

enum class Call { forward, backward_data, backward_weights, output_shape };

const char *call_name(Call call) {
  switch (call) {
    case Call::forward: return "dlk_conv2d_forward";
    case Call::backward_data: return "dlk_conv2d_backward_data";
    case Call::backward_weights: return "dlk_conv2d_backward_weights";
    case Call::output_shape: return "dlk_conv2d_output_shape";
  }
  return "";
}

const std::vector<Call> kAllCalls = {Call::forward, Call::backward_data, Call::backward_weights,
                                     Call::output_shape};
// Integer types and relu are forward-only; output_shape validates as the forward pass.
const std::vector<Call> kForwardCalls = {Call::forward, Call::output_shape};
const std::vector<Call> kBackwardCalls = {Call::backward_data, Call::backward_weights};

constexpr int64_t kNoShape = -7;  // what oh and ow hold until a call writes them

// One call: a descriptor, a buffer per tensor full of the sentinel, and the
// pointers passed, which a rule may move. The backward passes use the buffers in
// their roles: backward data reads dst as diff_dst and writes src as diff_src;
// backward weights writes weights and bias as diff_weights and diff_bias.
struct ConvCall {
  dlk_conv2d_desc desc{};
  const dlk_conv2d_desc *desc_arg = &desc;
  float scales[8] = {0.5f, 0.25f, 2.0f, 1.0f, 0.5f, 0.5f, 0.5f, 0.5f};
  SentinelBuffer src, weights, bias, dst;
  unsigned char *src_arg = src.data();
  unsigned char *weights_arg = weights.data();
  unsigned char *bias_arg = bias.data();
  unsigned char *dst_arg = dst.data();
  int64_t oh = kNoShape, ow = kNoShape;
  int64_t *oh_arg = &oh, *ow_arg = &ow;

  dlk_status run(dlk_context_t context, Call call) {
    float *bias_f32 = reinterpret_cast<float *>(bias_arg);
    switch (call) {
      case Call::forward:
        return dlk_conv2d_forward(context, desc_arg, src_arg, weights_arg, bias_f32, dst_arg);
      case Call::backward_data:
        return dlk_conv2d_backward_data(context, desc_arg, dst_arg, weights_arg, src_arg);
      case Call::backward_weights:
        return dlk_conv2d_backward_weights(context, desc_arg, src_arg, dst_arg, weights_arg, bias_f32);
      case Call::output_shape:
        return dlk_conv2d_output_shape(desc_arg, oh_arg, ow_arg);
    }
    return DLK_STATUS_INTERNAL_ERROR;
  }
  bool untouched() const {
    return src.untouched() && weights.untouched() && bias.untouched() && dst.untouched() &&
           oh == kNoShape && ow == kNoShape;
  }
};

using Edit = void (*)(ConvCall &);

// Valid starting points. f32: 2 x 4 x 6 x 5 input, 6 filters of 3 x 2 in two
// groups, padding 1: a 6 x 6 output.
void f32_nchw(ConvCall &g) {
  dlk_conv2d_desc_init(&g.desc, DLK_DTYPE_F32, 2, 4, 6, 5, 6, 3, 2);
  g.desc.pad_h = g.desc.pad_w = 1;
  g.desc.groups = 2;
}
void f32_nhwc_strided_dilated(ConvCall &g) {
  dlk_conv2d_desc_init(&g.desc, DLK_DTYPE_F32, 2, 4, 9, 8, 6, 3, 2);
  g.desc.format = DLK_FORMAT_NHWC;
  g.desc.stride_h = g.desc.stride_w = 2;
  g.desc.dilation_h = g.desc.dilation_w = 2;
  g.desc.pad_h = 1;
}
void f32_relu(ConvCall &g) {
  f32_nchw(g);
  g.desc.relu = 1;
}
void u8_requantized(ConvCall &g) {
  f32_nchw(g);
  g.desc.src_type = DLK_DTYPE_U8, g.desc.weights_type = DLK_DTYPE_S8, g.desc.dst_type = DLK_DTYPE_U8;
  g.desc.src_zero_point = 128, g.desc.dst_zero_point = 3;
  g.desc.scale_mode = DLK_SCALE_PER_CHANNEL, g.desc.scales = g.scales;
}
void s8_s32(ConvCall &g) {
  f32_nchw(g);
  g.desc.src_type = DLK_DTYPE_S8, g.desc.weights_type = DLK_DTYPE_S8, g.desc.dst_type = DLK_DTYPE_S32;
  g.desc.src_zero_point = -3;
  g.bias_arg = nullptr;  // s32 dst takes no bias
}
// 1 x 1 x 1 x 1 input, one 1 x 1 filter: every size comes from the one field a rule enlarges.
void f32_unit(ConvCall &g) { dlk_conv2d_desc_init(&g.desc, DLK_DTYPE_F32, 1, 1, 1, 1, 1, 1, 1); }

struct Base {
  const char *name;
  Edit setup;
  std::vector<Call> calls;
};
const std::vector<Base> kBases = {
    {"f32 NCHW, padding, groups", f32_nchw, kAllCalls},
    {"f32 NHWC, stride, dilation", f32_nhwc_strided_dilated, kAllCalls},
    {"f32 with relu", f32_relu, kForwardCalls},
    {"u8:s8:u8 per-channel scales", u8_requantized, kForwardCalls},
    {"s8:s8:s32", s8_s32, kForwardCalls},
    {"f32 1x1", f32_unit, kAllCalls},
};

struct Rule {
  const char *broken;
  Edit base;
  Edit edit;
  const char *argument;
  std::vector<Call> calls;
};

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

const std::vector<Rule> &descriptor_rules() {
  static const std::vector<Rule> rules = {
      {"desc is NULL", f32_nchw, [](ConvCall &g) { g.desc_arg = nullptr; }, "desc", kAllCalls},
      // Enums outside their values.
      {"format is 2", f32_nchw, [](ConvCall &g) { store_int(g.desc.format, 2); }, "format", kAllCalls},
      {"format is -1", f32_nchw, [](ConvCall &g) { store_int(g.desc.format, -1); }, "format", kAllCalls},
      {"src_type is 0", f32_nchw, [](ConvCall &g) { store_int(g.desc.src_type, 0); }, "src_type", kAllCalls},
      {"weights_type is 99", f32_nchw, [](ConvCall &g) { store_int(g.desc.weights_type, 99); }, "weights_type", kAllCalls},
      {"dst_type is -1", f32_nchw, [](ConvCall &g) { store_int(g.desc.dst_type, -1); }, "dst_type", kAllCalls},
      {"scale_mode is 7", f32_nchw, [](ConvCall &g) { store_int(g.desc.scale_mode, 7); }, "scale_mode", kAllCalls},
      // Sizes.
      {"n < 0", f32_nchw, [](ConvCall &g) { g.desc.n = -1; }, "n", kAllCalls},
      {"c < 1", f32_nchw, [](ConvCall &g) { g.desc.c = 0; }, "c", kAllCalls},
      {"h < 1", f32_nchw, [](ConvCall &g) { g.desc.h = 0; }, "h", kAllCalls},
      {"w < 1", f32_nchw, [](ConvCall &g) { g.desc.w = 0; }, "w", kAllCalls},
      {"k < 1", f32_nchw, [](ConvCall &g) { g.desc.k = 0; }, "k", kAllCalls},
      {"kh < 1", f32_nchw, [](ConvCall &g) { g.desc.kh = 0; }, "kh", kAllCalls},
      {"kw < 1", f32_nchw, [](ConvCall &g) { g.desc.kw = -2; }, "kw", kAllCalls},
      {"stride_h < 1", f32_nchw, [](ConvCall &g) { g.desc.stride_h = 0; }, "stride_h", kAllCalls},
      {"stride_w < 1", f32_nchw, [](ConvCall &g) { g.desc.stride_w = 0; }, "stride_w", kAllCalls},
      {"pad_h < 0", f32_nchw, [](ConvCall &g) { g.desc.pad_h = -1; }, "pad_h", kAllCalls},
      {"pad_w < 0", f32_nchw, [](ConvCall &g) { g.desc.pad_w = -1; }, "pad_w", kAllCalls},
      {"dilation_h < 1", f32_nchw, [](ConvCall &g) { g.desc.dilation_h = 0; }, "dilation_h", kAllCalls},
      {"dilation_w < 1", f32_nchw, [](ConvCall &g) { g.desc.dilation_w = 0; }, "dilation_w", kAllCalls},
      {"groups < 1", f32_nchw, [](ConvCall &g) { g.desc.groups = 0; }, "groups", kAllCalls},
      {"groups does not divide c", f32_nchw, [](ConvCall &g) { g.desc.groups = 3; }, "groups", kAllCalls},
      {"groups divides c but not k", f32_nchw, [](ConvCall &g) { g.desc.groups = 4; }, "groups", kAllCalls},
      {"relu is 2", f32_nchw, [](ConvCall &g) { g.desc.relu = 2; }, "relu", kAllCalls},
      {"relu on a backward pass", f32_relu, [](ConvCall &) {}, "relu", kBackwardCalls},
      // The kernel must fit the padded input.
      {"kh larger than the padded input", f32_nchw, [](ConvCall &g) { g.desc.kh = 9; }, "kh", kAllCalls},
      {"kw larger than the padded input", f32_nchw, [](ConvCall &g) { g.desc.kw = 8; }, "kw", kAllCalls},
      {"dilated kh spans past the padded input", f32_nchw, [](ConvCall &g) { g.desc.dilation_h = 4; }, "kh", kAllCalls},
      {"dilated kw spans past the padded input", f32_nchw, [](ConvCall &g) { g.desc.dilation_w = 7; }, "kw", kAllCalls},
      // Type combinations (src:weights:dst).
      {"f32:f16:f32", f32_nchw, [](ConvCall &g) { g.desc.weights_type = DLK_DTYPE_F16; }, "weights_type", kAllCalls},
      {"f32:f32:bf16", f32_nchw, [](ConvCall &g) { g.desc.dst_type = DLK_DTYPE_BF16; }, "dst_type", kAllCalls},
      {"f16:f16:f32", f32_nchw,
       [](ConvCall &g) { g.desc.src_type = g.desc.weights_type = DLK_DTYPE_F16; }, "dst_type", kAllCalls},
      {"s32 src", s8_s32, [](ConvCall &g) { g.desc.src_type = DLK_DTYPE_S32, g.desc.src_zero_point = 0; }, "src_type", kAllCalls},
      {"u8:u8:u8", u8_requantized, [](ConvCall &g) { g.desc.weights_type = DLK_DTYPE_U8; }, "weights_type", kForwardCalls},
      {"u8:s8:bf16", u8_requantized,
       [](ConvCall &g) { g.desc.dst_type = DLK_DTYPE_BF16, g.desc.dst_zero_point = 0; }, "dst_type", kForwardCalls},
      {"int8 types on a backward pass", u8_requantized, [](ConvCall &) {}, "src_type", kBackwardCalls},
      // Zero points.
      {"src_zero_point for f32 src", f32_nchw, [](ConvCall &g) { g.desc.src_zero_point = 1; }, "src_zero_point", kAllCalls},
      {"src_zero_point 256 for u8 src", u8_requantized, [](ConvCall &g) { g.desc.src_zero_point = 256; }, "src_zero_point", kForwardCalls},
      {"src_zero_point -129 for s8 src", s8_s32, [](ConvCall &g) { g.desc.src_zero_point = -129; }, "src_zero_point", kForwardCalls},
      {"dst_zero_point for f32 dst", f32_nchw, [](ConvCall &g) { g.desc.dst_zero_point = -1; }, "dst_zero_point", kAllCalls},
      {"dst_zero_point -1 for u8 dst", u8_requantized, [](ConvCall &g) { g.desc.dst_zero_point = -1; }, "dst_zero_point", kForwardCalls},
      {"dst_zero_point for s32 dst", s8_s32, [](ConvCall &g) { g.desc.dst_zero_point = 1; }, "dst_zero_point", kForwardCalls},
      // Scales.
      {"scales for f32", f32_nchw,
       [](ConvCall &g) { g.desc.scale_mode = DLK_SCALE_PER_TENSOR, g.desc.scales = g.scales; }, "scale_mode", kAllCalls},
      {"scales for s32 dst", s8_s32,
       [](ConvCall &g) { g.desc.scale_mode = DLK_SCALE_PER_CHANNEL, g.desc.scales = g.scales; }, "scale_mode", kForwardCalls},
      {"per-channel scales NULL", u8_requantized, [](ConvCall &g) { g.desc.scales = nullptr; }, "scales", kForwardCalls},
      {"per-tensor scales NULL", u8_requantized,
       [](ConvCall &g) { g.desc.scale_mode = DLK_SCALE_PER_TENSOR, g.desc.scales = nullptr; }, "scales", kForwardCalls},
      {"a per-channel scale is infinite", u8_requantized,
       [](ConvCall &g) { g.scales[5] = -std::numeric_limits<float>::infinity(); }, "scales", kForwardCalls},
      // Size products that overflow 64 bits, each charged to the field that tips it over.
      {"2 * pad_h overflows", f32_nchw, [](ConvCall &g) { g.desc.pad_h = int64_t{1} << 62; }, "pad_h", kAllCalls},
      {"w + 2 * pad_w overflows", f32_nchw, [](ConvCall &g) { g.desc.pad_w = kMax / 2; }, "pad_w", kAllCalls},
      {"dilation_h * (kh - 1) overflows", f32_nchw, [](ConvCall &g) { g.desc.dilation_h = kMax; }, "dilation_h", kAllCalls},
      {"dilation_w * (kw - 1) + 1 overflows", f32_nchw, [](ConvCall &g) { g.desc.dilation_w = kMax; }, "dilation_w", kAllCalls},
      {"n * c * h * w overflows", f32_unit,
       [](ConvCall &g) { g.desc.n = g.desc.c = g.desc.h = g.desc.w = int64_t{1} << 20; }, "n", kAllCalls},
      {"h alone overflows the bytes of src", f32_unit, [](ConvCall &g) { g.desc.h = g.desc.kh = int64_t{1} << 62; }, "h", kAllCalls},
      {"k alone overflows the bytes of dst", f32_unit, [](ConvCall &g) { g.desc.k = int64_t{1} << 62; }, "k", kAllCalls},
      {"k overflows the weights before k per-channel scales are read", u8_requantized,
       [](ConvCall &g) {
         g.desc.n = g.desc.h = g.desc.kh = g.desc.w = g.desc.kw = 1, g.desc.pad_h = g.desc.pad_w = 0;
         g.desc.groups = 1, g.desc.k = int64_t{1} << 62;
       }, "k", kForwardCalls},
      {"c * k overflows the weights", f32_unit,
       [](ConvCall &g) { g.desc.c = g.desc.k = int64_t{1} << 31; }, "k", kAllCalls},
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
      {"src is NULL", Call::forward, f32_nchw, [](ConvCall &g) { g.src_arg = nullptr; }, "src"},
      {"weights is NULL", Call::forward, f32_nchw, [](ConvCall &g) { g.weights_arg = nullptr; }, "weights"},
      {"dst is NULL", Call::forward, f32_nchw, [](ConvCall &g) { g.dst_arg = nullptr; }, "dst"},
      {"dst is src", Call::forward, f32_nchw, [](ConvCall &g) { g.dst_arg = g.src.data(); }, "dst"},
      {"dst starts inside src", Call::forward, f32_nchw, [](ConvCall &g) { g.dst_arg = g.src.data() + 100; }, "dst"},
      {"dst is weights", Call::forward, f32_nchw, [](ConvCall &g) { g.dst_arg = g.weights.data(); }, "dst"},
      {"bias starts inside dst", Call::forward, f32_nchw, [](ConvCall &g) { g.bias_arg = g.dst.data() + 64; }, "dst"},
      {"per-channel scales inside dst", Call::forward, u8_requantized,
       [](ConvCall &g) { g.desc.scales = reinterpret_cast<const float *>(g.dst.data() + 4); }, "dst"},
      {"the per-tensor scale inside dst", Call::forward, u8_requantized,
       [](ConvCall &g) {
         g.desc.scale_mode = DLK_SCALE_PER_TENSOR;
         g.desc.scales = reinterpret_cast<const float *>(g.dst.data() + 8);
       }, "dst"},
      {"bias for s32 dst", Call::forward, s8_s32, [](ConvCall &g) { g.bias_arg = g.bias.data(); }, "bias"},
      {"diff_dst is NULL", Call::backward_data, f32_nchw, [](ConvCall &g) { g.dst_arg = nullptr; }, "diff_dst"},
      {"weights is NULL", Call::backward_data, f32_nchw, [](ConvCall &g) { g.weights_arg = nullptr; }, "weights"},
      {"diff_src is NULL", Call::backward_data, f32_nchw, [](ConvCall &g) { g.src_arg = nullptr; }, "diff_src"},
      {"diff_src is diff_dst", Call::backward_data, f32_nchw, [](ConvCall &g) { g.src_arg = g.dst.data(); }, "diff_src"},
      {"diff_src is weights", Call::backward_data, f32_nchw, [](ConvCall &g) { g.src_arg = g.weights.data(); }, "diff_src"},
      {"src is NULL", Call::backward_weights, f32_nchw, [](ConvCall &g) { g.src_arg = nullptr; }, "src"},
      {"diff_dst is NULL", Call::backward_weights, f32_nchw, [](ConvCall &g) { g.dst_arg = nullptr; }, "diff_dst"},
      {"diff_weights is NULL", Call::backward_weights, f32_nchw, [](ConvCall &g) { g.weights_arg = nullptr; }, "diff_weights"},
      {"diff_weights is NULL for an empty batch (it is still written)", Call::backward_weights, f32_nchw,
       [](ConvCall &g) { g.desc.n = 0, g.weights_arg = nullptr; }, "diff_weights"},
      {"diff_weights is src", Call::backward_weights, f32_nchw, [](ConvCall &g) { g.weights_arg = g.src.data(); }, "diff_weights"},
      {"diff_weights is diff_dst", Call::backward_weights, f32_nchw, [](ConvCall &g) { g.weights_arg = g.dst.data(); }, "diff_weights"},
      {"diff_bias is src", Call::backward_weights, f32_nchw, [](ConvCall &g) { g.bias_arg = g.src.data(); }, "diff_bias"},
      {"diff_bias is diff_dst", Call::backward_weights, f32_nchw, [](ConvCall &g) { g.bias_arg = g.dst.data(); }, "diff_bias"},
      {"diff_bias is diff_weights", Call::backward_weights, f32_nchw,
       [](ConvCall &g) { g.bias_arg = g.weights.data() + 8; }, "diff_bias"},
      {"oh is NULL", Call::output_shape, f32_nchw, [](ConvCall &g) { g.oh_arg = nullptr; }, "oh"},
      {"ow is NULL", Call::output_shape, f32_nchw, [](ConvCall &g) { g.ow_arg = nullptr; }, "ow"},
  };
  return rules;
}

}  // namespace

TEST_CASE("conv2d: every starting descriptor is valid for its calls", "[validation][conv2d]") {
  TestContext context;
  for (const Base &base : kBases) {
    for (Call call : base.calls) {
      INFO("base: " << base.name << ", call: " << call_name(call));
      ConvCall args;
      base.setup(args);
      dlk_conv2d_output_shape(nullptr, nullptr, nullptr);  // leaves a message to clear
      expect_success(args.run(context.get(), call));
    }
  }
}

TEST_CASE("conv2d: dlk_conv2d_output_shape gives the output extent", "[validation][conv2d]") {
  ConvCall args;
  f32_nchw(args);
  expect_success(args.run(nullptr, Call::output_shape));
  CHECK(args.oh == 6);
  CHECK(args.ow == 6);
  f32_nhwc_strided_dilated(args);
  expect_success(args.run(nullptr, Call::output_shape));
  CHECK(args.oh == 4);  // (9 + 2 - 2 * 2 - 1) / 2 + 1
  CHECK(args.ow == 3);  // (8 - 2 * 1 - 1) / 2 + 1
}

TEST_CASE("conv2d: each descriptor rule broken alone is rejected by every call, naming its argument",
          "[validation][conv2d]") {
  TestContext context;
  expect_rules_rejected_by_their_calls<ConvCall>(context.get(), descriptor_rules(), call_name);
}

TEST_CASE("conv2d: each tensor rule broken alone is rejected, naming its argument", "[validation][conv2d]") {
  TestContext context;
  for (const PointerRule &rule : pointer_rules())
    expect_rule_rejected<ConvCall>(context.get(), rule, rule.call, call_name);
}

TEST_CASE("conv2d: a NULL context is rejected by every op", "[validation][conv2d]") {
  for (Call call : {Call::forward, Call::backward_data, Call::backward_weights}) {
    INFO("call: " << call_name(call));
    ConvCall args;
    f32_nchw(args);
    expect_rejected(args.run(nullptr, call), call_name(call), "context");
    CHECK(args.untouched());
  }
}

TEST_CASE("conv2d: an empty batch succeeds without touching memory", "[validation][conv2d]") {
  TestContext context;
  for (Call call : {Call::forward, Call::backward_data}) {
    INFO("call: " << call_name(call));
    ConvCall with_buffers;
    f32_nchw(with_buffers);
    with_buffers.desc.n = 0;
    expect_success(with_buffers.run(context.get(), call));
    CHECK(with_buffers.untouched());

    ConvCall with_null;
    f32_nchw(with_null);
    with_null.desc.n = 0;
    with_null.src_arg = with_null.weights_arg = with_null.bias_arg = with_null.dst_arg = nullptr;
    expect_success(with_null.run(context.get(), call));
  }
  // Backward weights of an empty batch writes zero gradients, and reads nothing.
  ConvCall weights_only;
  f32_nchw(weights_only);
  weights_only.desc.n = 0;
  weights_only.src_arg = weights_only.dst_arg = nullptr;
  expect_success(weights_only.run(context.get(), Call::backward_weights));
  CHECK(weights_only.src.untouched());
  CHECK(weights_only.dst.untouched());
}
