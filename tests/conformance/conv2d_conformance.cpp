// conv2d conformance: forward (float and int8 with zero points, scales, bias,
// ReLU and requantization), backward data and backward weights (with diff_bias),
// NCHW and NHWC, on every target.
#include <catch2/catch.hpp>

#include "tests/conformance/conv2d_problems.hpp"
#include "tests/conformance/device_buffer.hpp"
#include "tests/conformance/reference_conv2d.hpp"
#include "tests/conformance/suite.hpp"

namespace dlk::conformance {
namespace {

dlk_conv2d_desc desc_of(const ConvProblem &p) {
  dlk_conv2d_desc d = p.desc;
  d.scales = p.scales.empty() ? nullptr : p.scales.data();
  return d;
}

// What the outputs must hold: each reference once per case, shared by the targets.
struct ConvExpected {
  Expected dst, diff_src, diff_weights, diff_bias;
};

ConvExpected expected_of(const ConvProblem &p, const ConvTensors &x) {
  const dlk_conv2d_desc d = desc_of(p);
  ConvExpected e;
  switch (p.op) {
    case DLK_OP_CONV2D_FORWARD: e.dst = reference_conv2d_forward(d, x.src, x.weights, x.bias); break;
    case DLK_OP_CONV2D_BACKWARD_DATA: e.diff_src = reference_conv2d_backward_data(d, x.diff_dst, x.weights); break;
    default: {
      ConvWeightGradients g = reference_conv2d_backward_weights(d, x.src, x.diff_dst);
      e.diff_weights = std::move(g.diff_weights);
      e.diff_bias = std::move(g.diff_bias);
    }
  }
  return e;
}

Verdict run_conv(const Target &target, const ConvProblem &p, const ConvTensors &x,
                 const ConvExpected &want) {
  const dlk_conv2d_desc d = desc_of(p);
  const ConvGeometry g(d);
  Checker check;
  int64_t oh = -1, ow = -1;
  check.status("dlk_conv2d_output_shape", dlk_conv2d_output_shape(&d, &oh, &ow));
  if (oh != g.oh || ow != g.ow) {
    check.fail("dlk_conv2d_output_shape gives " + std::to_string(oh) + "x" + std::to_string(ow) +
               ", expected " + std::to_string(g.oh) + "x" + std::to_string(g.ow));
    return check.verdict();
  }
  const auto src_name = [&](int64_t i) { return dense_element_name(d.format, d.c, d.h, d.w, i); };
  const auto dst_name = [&](int64_t i) { return dense_element_name(d.format, d.k, g.oh, g.ow, i); };
  // Weights are k images of c/groups x kh x kw in the same format.
  const auto weights_name = [&](int64_t i) {
    return dense_element_name(d.format, g.c_per_group, d.kh, d.kw, i, "k");
  };
  const auto bias_name = [](int64_t i) { return "k=" + std::to_string(i); };

  if (p.op == DLK_OP_CONV2D_FORWARD) {
    DeviceBuffer src(target, x.src), weights(target, x.weights), dst(target, x.dst);
    DeviceBuffer bias(target, x.bias_tensor);
    check.status("dlk_conv2d_forward",
                 dlk_conv2d_forward(target.context, &d, src.data(), weights.data(),
                                    p.bias ? static_cast<const float *>(bias.data()) : nullptr, dst.data()));
    check.output("dst", dst, want.dst, dst_name);
    check.input("src", src);
    check.input("weights", weights);
    check.input("bias", bias);
  } else if (p.op == DLK_OP_CONV2D_BACKWARD_DATA) {
    DeviceBuffer diff_dst(target, x.diff_dst), weights(target, x.weights), diff_src(target, x.diff_src);
    check.status("dlk_conv2d_backward_data",
                 dlk_conv2d_backward_data(target.context, &d, diff_dst.data(), weights.data(), diff_src.data()));
    check.output("diff_src", diff_src, want.diff_src, src_name);
    check.input("diff_dst", diff_dst);
    check.input("weights", weights);
  } else {
    DeviceBuffer src(target, x.src), diff_dst(target, x.diff_dst);
    DeviceBuffer diff_weights(target, x.diff_weights), diff_bias(target, x.diff_bias);
    check.status("dlk_conv2d_backward_weights",
                 dlk_conv2d_backward_weights(target.context, &d, src.data(), diff_dst.data(), diff_weights.data(),
                                             p.bias ? static_cast<float *>(diff_bias.data()) : nullptr));
    check.output("diff_weights", diff_weights, want.diff_weights, weights_name);
    if (p.bias) check.output("diff_bias", diff_bias, want.diff_bias, bias_name);
    check.input("src", src);
    check.input("diff_dst", diff_dst);
  }
  return check.verdict();
}

void run_conv_suite(const char *id, dlk_op op, const std::vector<ConvTypes> &types) {
  Suite suite(id);
  Rng rng = suite.case_rng();
  const std::vector<ConvProblem> problems = conv2d_problems(op, types, rng, suite.random_cases());
  for (size_t i = 0; i < problems.size(); ++i) {
    if (!suite.selected(i)) continue;
    const ConvProblem &p = problems[i];
    Rng data = suite.data_rng(i);
    const ConvTensors x = make_conv_tensors(p, data);
    const ConvExpected want = expected_of(p, x);
    suite.run(i, p.describe(), {op, p.desc.src_type, p.desc.weights_type, p.desc.dst_type},
              [&](const Target &t) { return run_conv(t, p, x, want); });
  }
  suite.finish();
}

std::vector<ConvTypes> int8_forward_types() {
  std::vector<ConvTypes> types;
  for (dlk_dtype src : {DLK_DTYPE_U8, DLK_DTYPE_S8})
    for (dlk_dtype dst : {DLK_DTYPE_S32, DLK_DTYPE_F32, DLK_DTYPE_S8, DLK_DTYPE_U8}) types.push_back({src, dst});
  return types;
}

}  // namespace
}  // namespace dlk::conformance

using dlk::conformance::int8_forward_types;
using dlk::conformance::run_conv_suite;

TEST_CASE("conv2d forward f32", "[conformance][conv2d][forward][f32]") {
  run_conv_suite("conv2d_forward.f32", DLK_OP_CONV2D_FORWARD, {{DLK_DTYPE_F32, DLK_DTYPE_F32}});
}
TEST_CASE("conv2d forward f16", "[conformance][conv2d][forward][f16]") {
  run_conv_suite("conv2d_forward.f16", DLK_OP_CONV2D_FORWARD, {{DLK_DTYPE_F16, DLK_DTYPE_F16}});
}
TEST_CASE("conv2d forward bf16", "[conformance][conv2d][forward][bf16]") {
  run_conv_suite("conv2d_forward.bf16", DLK_OP_CONV2D_FORWARD, {{DLK_DTYPE_BF16, DLK_DTYPE_BF16}});
}
TEST_CASE("conv2d forward int8", "[conformance][conv2d][forward][int8]") {
  run_conv_suite("conv2d_forward.int8", DLK_OP_CONV2D_FORWARD, int8_forward_types());
}
TEST_CASE("conv2d backward_data f32", "[conformance][conv2d][backward_data][f32]") {
  run_conv_suite("conv2d_backward_data.f32", DLK_OP_CONV2D_BACKWARD_DATA, {{DLK_DTYPE_F32, DLK_DTYPE_F32}});
}
TEST_CASE("conv2d backward_data f16", "[conformance][conv2d][backward_data][f16]") {
  run_conv_suite("conv2d_backward_data.f16", DLK_OP_CONV2D_BACKWARD_DATA, {{DLK_DTYPE_F16, DLK_DTYPE_F16}});
}
TEST_CASE("conv2d backward_data bf16", "[conformance][conv2d][backward_data][bf16]") {
  run_conv_suite("conv2d_backward_data.bf16", DLK_OP_CONV2D_BACKWARD_DATA, {{DLK_DTYPE_BF16, DLK_DTYPE_BF16}});
}
TEST_CASE("conv2d backward_weights f32", "[conformance][conv2d][backward_weights][f32]") {
  run_conv_suite("conv2d_backward_weights.f32", DLK_OP_CONV2D_BACKWARD_WEIGHTS, {{DLK_DTYPE_F32, DLK_DTYPE_F32}});
}
TEST_CASE("conv2d backward_weights f16", "[conformance][conv2d][backward_weights][f16]") {
  run_conv_suite("conv2d_backward_weights.f16", DLK_OP_CONV2D_BACKWARD_WEIGHTS, {{DLK_DTYPE_F16, DLK_DTYPE_F16}});
}
TEST_CASE("conv2d backward_weights bf16", "[conformance][conv2d][backward_weights][bf16]") {
  run_conv_suite("conv2d_backward_weights.bf16", DLK_OP_CONV2D_BACKWARD_WEIGHTS, {{DLK_DTYPE_BF16, DLK_DTYPE_BF16}});
}
