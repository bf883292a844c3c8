// DLK_VERBOSE (core/verbose.cpp, core/context.cpp): level 1 prints exactly one
// "dlk_verbose,exec," line on stderr per op call that ran, level 2 adds the
// dispatch decisions, level 0 prints nothing, and a rejected call prints nothing.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "tests/core/scoped_env.hpp"
#include "tests/core/stderr_capture.hpp"
#include "tests/core/validation_support.hpp"

namespace {

using namespace dlk_test;

const char *const kExec = "dlk_verbose,exec,";
const char *const kDispatch = "dlk_verbose,dispatch,";

// One valid call of every op, small and f32, on host buffers; runs them in the
// order of `kOpNames`.
struct EveryOp {
  std::vector<float> a = std::vector<float>(4 * 3, 1.0f), b = std::vector<float>(3 * 5, 1.0f),
                     c = std::vector<float>(4 * 5);
  std::vector<float> src = std::vector<float>(1 * 2 * 5 * 5, 1.0f), weights = std::vector<float>(3 * 2 * 3 * 3, 1.0f),
                     dst = std::vector<float>(1 * 3 * 3 * 3, 1.0f), bias = std::vector<float>(3, 0.5f);
  std::vector<float> pool_src = std::vector<float>(1 * 2 * 4 * 4, 1.0f), pool_dst = std::vector<float>(1 * 2 * 2 * 2, 1.0f);
  std::vector<int32_t> argmax = std::vector<int32_t>(1 * 2 * 2 * 2, 0);

  void run(dlk_context_t context) {
    dlk_gemm_desc gemm;
    dlk_gemm_desc_init(&gemm, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 4, 5, 3);
    dlk_conv2d_desc conv;
    dlk_conv2d_desc_init(&conv, DLK_DTYPE_F32, 1, 2, 5, 5, 3, 3, 3);
    dlk_pool2d_desc pool;
    dlk_pool2d_desc_init(&pool, DLK_POOL_MAX, DLK_DTYPE_F32, 1, 2, 4, 4, 2, 2);
    CHECK(dlk_gemm(context, &gemm, a.data(), b.data(), c.data()) == DLK_STATUS_SUCCESS);
    CHECK(dlk_conv2d_forward(context, &conv, src.data(), weights.data(), bias.data(), dst.data()) ==
          DLK_STATUS_SUCCESS);
    CHECK(dlk_conv2d_backward_data(context, &conv, dst.data(), weights.data(), src.data()) ==
          DLK_STATUS_SUCCESS);
    CHECK(dlk_conv2d_backward_weights(context, &conv, src.data(), dst.data(), weights.data(), bias.data()) ==
          DLK_STATUS_SUCCESS);
    CHECK(dlk_pool2d_forward(context, &pool, pool_src.data(), pool_dst.data(), argmax.data()) ==
          DLK_STATUS_SUCCESS);
    CHECK(dlk_pool2d_backward(context, &pool, pool_dst.data(), argmax.data(), pool_src.data()) ==
          DLK_STATUS_SUCCESS);
  }
};

const std::vector<std::string> kOpNames = {"gemm",           "conv2d_forward",
                                           "conv2d_backward_data", "conv2d_backward_weights",
                                           "pool2d_forward", "pool2d_backward"};

std::vector<std::string> split(const std::string &line, char sep) {
  std::vector<std::string> fields;
  std::istringstream stream(line);
  for (std::string field; std::getline(stream, field, sep);) fields.push_back(field);
  return fields;
}

bool ends_with(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// One exec line per op, in order:
// dlk_verbose,exec,<backend>,<op>,<implementation>,<types>,<problem>,<ms>ms,<rate>GFLOP/s
void expect_one_exec_line_per_op(const std::vector<std::string> &exec) {
  REQUIRE(exec.size() == kOpNames.size());
  for (size_t i = 0; i < exec.size(); ++i) {
    INFO("line: " << exec[i]);
    const auto fields = split(exec[i], ',');
    REQUIRE(fields.size() == 9);
    CHECK(fields[2] == "cpu");
    CHECK(fields[3] == kOpNames[i]);
    CHECK(!fields[4].empty());
    CHECK(fields[5] == (kOpNames[i].rfind("pool", 0) == 0 ? "f32" : "f32:f32:f32"));
    CHECK(ends_with(fields[7], "ms"));
    CHECK(ends_with(fields[8], "GFLOP/s"));
  }
}

// A call that fails validation: it must print nothing.
void rejected_gemm(dlk_context_t context) {
  dlk_gemm_desc gemm;
  dlk_gemm_desc_init(&gemm, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 4, 5, 3);
  gemm.lda = 1;
  float buffer[64];
  CHECK(dlk_gemm(context, &gemm, buffer, buffer + 16, buffer + 32) == DLK_STATUS_INVALID_ARGUMENT);
}

}  // namespace

TEST_CASE("verbose: level 0 prints nothing", "[verbose]") {
  StderrCapture capture;
  {
    TestContext context(0);
    EveryOp ops;
    ops.run(context.get());
  }
  CHECK(capture.lines().empty());
}

TEST_CASE("verbose: level 1 prints one exec line per op call, and no dispatch line", "[verbose]") {
  StderrCapture capture;
  {
    TestContext context(1);
    EveryOp ops;
    rejected_gemm(context.get());
    ops.run(context.get());
    rejected_gemm(context.get());
  }
  const auto lines = capture.lines();
  expect_one_exec_line_per_op(lines_starting(lines, kExec));
  CHECK(lines_starting(lines, kDispatch).empty());
  CHECK(lines_starting(lines, "dlk_verbose,info,context,backend=cpu,").size() == 1);
}

TEST_CASE("verbose: DLK_VERBOSE=1 from the environment does the same", "[verbose]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  ScopedEnv verbose("DLK_VERBOSE", "1");
  StderrCapture capture;
  dlk_context_t context = nullptr;
  REQUIRE(dlk_context_create(&context, nullptr) == DLK_STATUS_SUCCESS);
  EveryOp ops;
  ops.run(context);
  dlk_context_destroy(context);
  const auto lines = capture.lines();
  expect_one_exec_line_per_op(lines_starting(lines, kExec));
  CHECK(lines_starting(lines, kDispatch).empty());
}

TEST_CASE("verbose: DLK_VERBOSE=2 adds the dispatch decisions", "[verbose]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "auto");  // auto always decides, and says what
  ScopedEnv verbose("DLK_VERBOSE", "2");
  StderrCapture capture;
  dlk_context_t context = nullptr;
  REQUIRE(dlk_context_create(&context, nullptr) == DLK_STATUS_SUCCESS);
  dlk_context_info info;
  REQUIRE(dlk_context_get_info(context, &info) == DLK_STATUS_SUCCESS);
  EveryOp ops;
  if (std::string(info.backend) == "cpu") ops.run(context);
  dlk_context_destroy(context);
  const auto lines = capture.lines();
  const auto dispatch = lines_starting(lines, kDispatch);
  CHECK_FALSE(dispatch.empty());
  CHECK_THAT(dispatch.front(), Catch::StartsWith("dlk_verbose,dispatch,backend: auto "));
  if (std::string(info.backend) == "cpu") expect_one_exec_line_per_op(lines_starting(lines, kExec));
}
