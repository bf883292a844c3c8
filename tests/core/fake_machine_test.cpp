// A machine of known make-up, whatever this one is: the program links libdlk's
// objects with fake_cpu_features_avx2.cpp (a CPU with AVX2, without AVX-512) and
// keeps no backend module beside itself, where core looks for one.
// - DLK_CPU_ISA above what the CPU has is unavailable, saying what the CPU has.
// - DLK_BACKEND=cuda without the CUDA module is unavailable, saying why.
#include <string>
#include <vector>

#include "tests/core/scoped_env.hpp"
#include "tests/core/stderr_capture.hpp"
#include "tests/core/validation_support.hpp"

using namespace dlk_test;

namespace {

struct Created {
  std::string isa;
  std::vector<std::string> dispatch;
};

Created create_capturing(const dlk_context_options *options) {
  StderrCapture capture;
  dlk_context_t context = nullptr;
  const dlk_status status = dlk_context_create(&context, options);
  Created out;
  const auto lines = capture.lines();
  INFO("dlk_last_error(): " << dlk_last_error());
  REQUIRE(status == DLK_STATUS_SUCCESS);
  dlk_context_info info;
  REQUIRE(dlk_context_get_info(context, &info) == DLK_STATUS_SUCCESS);
  dlk_context_destroy(context);
  out.isa = info.isa;
  out.dispatch = lines_starting(lines, "dlk_verbose,dispatch,");
  return out;
}

}  // namespace

TEST_CASE("fake machine: with no DLK_CPU_ISA the context uses what the CPU has", "[env][fake_machine]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  ScopedEnv verbose("DLK_VERBOSE", "2");
  const Created out = create_capturing(nullptr);
  CHECK(out.isa == "avx2");
  CHECK(out.dispatch.empty());
}

TEST_CASE("fake machine: DLK_CPU_ISA=avx512 on an AVX2 CPU is unavailable, listing what it has",
          "[env][fake_machine]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  ScopedEnv isa("DLK_CPU_ISA", "avx512");
  dlk_context_t context = nullptr;
  const dlk_status status = dlk_context_create(&context, nullptr);
  CHECK(status_name(status) == status_name(DLK_STATUS_BACKEND_UNAVAILABLE));
  CHECK(context == nullptr);
  CHECK(std::string(dlk_last_error()) ==
        "dlk_context_create: DLK_CPU_ISA=avx512: this CPU cannot run it; it has avx2 (avx2 fma)");
}

TEST_CASE("fake machine: options->cpu_isa above the CPU is refused the same way, naming the option",
          "[env][fake_machine]") {
  CleanDlkEnvironment clean;
  dlk_context_options options;
  dlk_context_options_init(&options);
  options.backend = "cpu";
  options.cpu_isa = "avx512";
  dlk_context_t context = nullptr;
  const dlk_status status = dlk_context_create(&context, &options);
  CHECK(status_name(status) == status_name(DLK_STATUS_BACKEND_UNAVAILABLE));
  CHECK(std::string(dlk_last_error()) ==
        "dlk_context_create: options->cpu_isa=avx512: this CPU cannot run it; it has avx2 "
        "(avx2 fma)");
}

TEST_CASE("fake machine: ISAs at or below the CPU pass as asked, without a dispatch line",
          "[env][fake_machine]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  ScopedEnv verbose("DLK_VERBOSE", "2");
  for (const char *asked : {"avx2", "scalar"}) {
    INFO("DLK_CPU_ISA=" << asked);
    ScopedEnv isa("DLK_CPU_ISA", asked);
    const Created out = create_capturing(nullptr);
    CHECK(out.isa == asked);
    CHECK(out.dispatch.empty());
  }
}

TEST_CASE("fake machine: DLK_BACKEND=cuda without the CUDA module is unavailable, saying why",
          "[env][fake_machine]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cuda");
  dlk_context_t context = nullptr;
  const dlk_status status = dlk_context_create(&context, nullptr);
  const std::string error = dlk_last_error();
  INFO("dlk_last_error(): " << error);
  CHECK(status_name(status) == status_name(DLK_STATUS_BACKEND_UNAVAILABLE));
  CHECK(context == nullptr);
  CHECK_THAT(error, Catch::StartsWith("dlk_context_create: backend 'cuda': cannot load libdlk_cuda.so." +
                                      std::to_string(DLK_ABI_VERSION) + " ("));
  CHECK_THAT(error, Catch::EndsWith("); was dlk built with its module?"));
}
