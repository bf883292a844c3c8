// pool2d conformance: max (argmax, ties, all-negative windows at padded
// borders) and average (counting padding or not), forward for every type and
// backward for the float types, NCHW and NHWC, on every target.
#include <catch2/catch.hpp>

#include "tests/conformance/device_buffer.hpp"
#include "tests/conformance/pool2d_problems.hpp"
#include "tests/conformance/reference_pool2d.hpp"
#include "tests/conformance/suite.hpp"

namespace dlk::conformance {
namespace {

struct PoolExpected {
  PoolForward forward;  // of src: what a forward case must give, and the argmax a backward case takes
  Expected diff_src;
};

Verdict run_pool(const Target &target, const PoolProblem &p, const PoolTensors &x,
                 const PoolExpected &want) {
  const dlk_pool2d_desc &d = p.desc;
  const PoolGeometry g(d);
  Checker check;
  int64_t oh = -1, ow = -1;
  check.status("dlk_pool2d_output_shape", dlk_pool2d_output_shape(&d, &oh, &ow));
  if (oh != g.oh || ow != g.ow) {
    check.fail("dlk_pool2d_output_shape gives " + std::to_string(oh) + "x" + std::to_string(ow) +
               ", expected " + std::to_string(g.oh) + "x" + std::to_string(g.ow));
    return check.verdict();
  }
  const auto src_name = [&](int64_t i) { return dense_element_name(d.format, d.c, d.h, d.w, i); };
  const auto dst_name = [&](int64_t i) { return dense_element_name(d.format, d.c, g.oh, g.ow, i); };
  const bool max = d.kind == DLK_POOL_MAX;
  if (p.op == DLK_OP_POOL2D_FORWARD) {
    DeviceBuffer src(target, x.src), dst(target, x.dst), argmax(target, x.argmax);
    const bool with_argmax = max && p.argmax;
    check.status("dlk_pool2d_forward",
                 dlk_pool2d_forward(target.context, &d, src.data(), dst.data(),
                                    with_argmax ? static_cast<int32_t *>(argmax.data()) : nullptr));
    check.output("dst", dst, want.forward.dst, dst_name);
    if (with_argmax) check.output("argmax", argmax, want.forward.argmax, dst_name);
    check.input("src", src);
    return check.verdict();
  }
  DeviceBuffer diff_dst(target, x.diff_dst), argmax(target, want.forward.indices), diff_src(target, x.diff_src);
  check.status("dlk_pool2d_backward",
               dlk_pool2d_backward(target.context, &d, diff_dst.data(),
                                   max ? static_cast<const int32_t *>(argmax.data()) : nullptr, diff_src.data()));
  check.output("diff_src", diff_src, want.diff_src, src_name);
  check.input("diff_dst", diff_dst);
  check.input("argmax", argmax);
  return check.verdict();
}

void run_pool_suite(const char *id, dlk_op op, dlk_dtype dtype) {
  Suite suite(id);
  Rng rng = suite.case_rng();
  const std::vector<PoolProblem> problems = pool2d_problems(op, dtype, rng, suite.random_cases());
  for (size_t i = 0; i < problems.size(); ++i) {
    if (!suite.selected(i)) continue;
    const PoolProblem &p = problems[i];
    Rng data = suite.data_rng(i);
    const PoolTensors x = make_pool_tensors(p, data);
    PoolExpected want{reference_pool2d_forward(p.desc, x.src), Expected()};
    if (op == DLK_OP_POOL2D_BACKWARD)
      want.diff_src = reference_pool2d_backward(p.desc, x.diff_dst, want.forward.indices);
    suite.run(i, p.describe(), {op, dtype, dtype, dtype},
              [&](const Target &t) { return run_pool(t, p, x, want); });
  }
  suite.finish();
}

}  // namespace
}  // namespace dlk::conformance

using dlk::conformance::run_pool_suite;

TEST_CASE("pool2d forward f32", "[conformance][pool2d][forward][f32]") {
  run_pool_suite("pool2d_forward.f32", DLK_OP_POOL2D_FORWARD, DLK_DTYPE_F32);
}
TEST_CASE("pool2d forward f16", "[conformance][pool2d][forward][f16]") {
  run_pool_suite("pool2d_forward.f16", DLK_OP_POOL2D_FORWARD, DLK_DTYPE_F16);
}
TEST_CASE("pool2d forward bf16", "[conformance][pool2d][forward][bf16]") {
  run_pool_suite("pool2d_forward.bf16", DLK_OP_POOL2D_FORWARD, DLK_DTYPE_BF16);
}
TEST_CASE("pool2d forward s8", "[conformance][pool2d][forward][int8]") {
  run_pool_suite("pool2d_forward.s8", DLK_OP_POOL2D_FORWARD, DLK_DTYPE_S8);
}
TEST_CASE("pool2d forward u8", "[conformance][pool2d][forward][int8]") {
  run_pool_suite("pool2d_forward.u8", DLK_OP_POOL2D_FORWARD, DLK_DTYPE_U8);
}
TEST_CASE("pool2d backward f32", "[conformance][pool2d][backward][f32]") {
  run_pool_suite("pool2d_backward.f32", DLK_OP_POOL2D_BACKWARD, DLK_DTYPE_F32);
}
TEST_CASE("pool2d backward f16", "[conformance][pool2d][backward][f16]") {
  run_pool_suite("pool2d_backward.f16", DLK_OP_POOL2D_BACKWARD, DLK_DTYPE_F16);
}
TEST_CASE("pool2d backward bf16", "[conformance][pool2d][backward][bf16]") {
  run_pool_suite("pool2d_backward.bf16", DLK_OP_POOL2D_BACKWARD, DLK_DTYPE_BF16);
}
