// GEMM conformance: every type combination of dlk.h, both layouts, all four
// transposes, padded leading dimensions, strided batches, alpha/beta, int8 zero
// points, scales and requantization, on every target.
#include <catch2/catch.hpp>

#include "tests/conformance/device_buffer.hpp"
#include "tests/conformance/gemm_problems.hpp"
#include "tests/conformance/reference_gemm.hpp"
#include "tests/conformance/suite.hpp"

namespace dlk::conformance {
namespace {

dlk_gemm_desc desc_of(const GemmProblem &p) {
  dlk_gemm_desc d = p.desc;
  d.scales = p.scales.empty() ? nullptr : p.scales.data();
  return d;
}

Verdict run_gemm(const Target &target, const GemmProblem &p, const GemmTensors &x,
                 const Expected &want) {
  DeviceBuffer a(target, x.a, p.misalign), b(target, x.b, p.misalign), c(target, x.c, p.misalign);
  const dlk_gemm_desc d = desc_of(p);
  Checker check;
  check.status("dlk_gemm", dlk_gemm(target.context, &d, a.data(), b.data(), c.data()));
  check.output("c", c, want, [&](int64_t i) { return gemm_c_name(d, i); });
  check.input("a", a);
  check.input("b", b);
  return check.verdict();
}

void run_gemm_suite(const char *id, dlk_dtype a_type, dlk_dtype b_type) {
  Suite suite(id);
  Rng rng = suite.case_rng();
  const std::vector<GemmProblem> problems = gemm_problems(a_type, b_type, rng, suite.random_cases());
  for (size_t i = 0; i < problems.size(); ++i) {
    if (!suite.selected(i)) continue;
    const GemmProblem &p = problems[i];
    Rng data = suite.data_rng(i);
    const GemmTensors x = make_gemm_tensors(p, data);
    const Expected want = reference_gemm(desc_of(p), x.a, x.b, x.c);
    suite.run(i, p.describe(), {DLK_OP_GEMM, a_type, b_type, p.desc.c_type},
              [&](const Target &t) { return run_gemm(t, p, x, want); });
  }
  suite.finish();
}

}  // namespace
}  // namespace dlk::conformance

using dlk::conformance::run_gemm_suite;

TEST_CASE("gemm f32", "[conformance][gemm][f32]") {
  run_gemm_suite("gemm.f32", DLK_DTYPE_F32, DLK_DTYPE_F32);
}
TEST_CASE("gemm f16", "[conformance][gemm][f16]") {
  run_gemm_suite("gemm.f16", DLK_DTYPE_F16, DLK_DTYPE_F16);
}
TEST_CASE("gemm bf16", "[conformance][gemm][bf16]") {
  run_gemm_suite("gemm.bf16", DLK_DTYPE_BF16, DLK_DTYPE_BF16);
}
TEST_CASE("gemm u8 s8", "[conformance][gemm][int8]") {
  run_gemm_suite("gemm.u8s8", DLK_DTYPE_U8, DLK_DTYPE_S8);
}
TEST_CASE("gemm s8 s8", "[conformance][gemm][int8]") {
  run_gemm_suite("gemm.s8s8", DLK_DTYPE_S8, DLK_DTYPE_S8);
}
