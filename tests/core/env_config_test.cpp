// Run-time configuration (core/env_config.cpp): each DLK_* variable's valid values
// are accepted, an unknown value is rejected with a message that lists the valid
// ones, code options win over the environment, DLK_CPU_ISA above what the CPU has
// is unavailable, and the cuda backend is unavailable (with the reason) without its module.
#include <sched.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/core/scoped_env.hpp"
#include "tests/core/stderr_capture.hpp"
#include "tests/core/validation_support.hpp"

namespace {

using namespace dlk_test;

const dlk_context_t kNotWritten = reinterpret_cast<dlk_context_t>(uintptr_t{0x5a5a0});

// What dlk_context_create did with `options` (NULL: the environment alone); the
// context, if any, is destroyed at once.
struct Outcome {
  dlk_status status = DLK_STATUS_INTERNAL_ERROR;
  std::string error;
  dlk_context_info info{};
  bool context_written = false;
};

Outcome create(const dlk_context_options *options) {
  Outcome out;
  dlk_context_t context = kNotWritten;
  out.status = dlk_context_create(&context, options);
  out.error = dlk_last_error();
  out.context_written = context != kNotWritten;
  if (out.status == DLK_STATUS_SUCCESS) {
    dlk_context_get_info(context, &out.info);
    dlk_context_destroy(context);
  }
  return out;
}

dlk_context_options default_options() {
  dlk_context_options options;
  dlk_context_options_init(&options);
  return options;
}

// The highest ISA this CPU and OS offer, asked of the compiler's runtime rather
// than of dlk.
std::string hardware_isa() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    return "avx512";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "avx2";
  return "scalar";
}

int isa_rank(const std::string &isa) { return isa == "avx512" ? 2 : isa == "avx2" ? 1 : 0; }

int cores_available() {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
  return CPU_COUNT(&set);
}

// Rejected, naming `argument`, listing `valid`, and *context left alone.
void expect_unknown_value(const Outcome &out, const std::string &argument, const std::string &valid) {
  expect_rejected(out.status, "dlk_context_create", argument);
  CHECK_THAT(out.error, Catch::Contains("valid values: " + valid));
  CHECK_FALSE(out.context_written);
}

const std::string kBackends = "auto, cpu, cuda, fpga_sim";
const std::string kIsas = "avx512, avx2, scalar";

}  // namespace

TEST_CASE("env: with nothing set, a context gets the defaults", "[env]") {
  CleanDlkEnvironment clean;
  StderrCapture capture;
  const Outcome out = create(nullptr);
  const auto stderr_lines = capture.lines();
  expect_success(out.status);
  CHECK((std::string(out.info.backend) == "cpu" || std::string(out.info.backend) == "cuda"));
  if (std::string(out.info.backend) == "cpu") {
    CHECK(out.info.isa == hardware_isa());
    CHECK(out.info.num_threads == cores_available());
  }
  CHECK(stderr_lines.empty());  // DLK_VERBOSE defaults to 0
}

TEST_CASE("env: DLK_BACKEND takes each valid value", "[env]") {
  CleanDlkEnvironment clean;
  for (const char *value : {"auto", "cpu"}) {
    INFO("DLK_BACKEND=" << value);
    ScopedEnv env("DLK_BACKEND", value);
    expect_success(create(nullptr).status);
  }
  // Valid names whose backend may not run here: never an invalid argument.
  for (const std::string value : {"cuda", "fpga_sim"}) {
    INFO("DLK_BACKEND=" << value);
    ScopedEnv env("DLK_BACKEND", value.c_str());
    const Outcome out = create(nullptr);
    INFO("dlk_last_error(): " << out.error);
    if (out.status == DLK_STATUS_SUCCESS) continue;
    CHECK(status_name(out.status) == status_name(DLK_STATUS_BACKEND_UNAVAILABLE));
    CHECK_THAT(out.error, Catch::StartsWith("dlk_context_create: backend '" + value + "': "));
    CHECK_FALSE(out.context_written);
  }
}

TEST_CASE("env: DLK_BACKEND rejects an unknown value, listing the valid ones", "[env]") {
  CleanDlkEnvironment clean;
  for (const char *value : {"gpu", "CPU", "", " cpu", "cpu,cuda"}) {
    INFO("DLK_BACKEND='" << value << "'");
    ScopedEnv env("DLK_BACKEND", value);
    expect_unknown_value(create(nullptr), "DLK_BACKEND", kBackends);
  }
}

TEST_CASE("env: DLK_BACKEND=cuda where it cannot run is unavailable, saying why", "[env]") {
  // Without the module (fake_machine_test checks that message) or without a
  // usable GPU, the reason follows the backend's name.
  CleanDlkEnvironment clean;
  ScopedEnv env("DLK_BACKEND", "cuda");
  const Outcome out = create(nullptr);
  if (out.status == DLK_STATUS_SUCCESS) {
    WARN("the cuda backend runs here; this test needs a machine where it cannot");
    return;
  }
  INFO("dlk_last_error(): " << out.error);
  CHECK(status_name(out.status) == status_name(DLK_STATUS_BACKEND_UNAVAILABLE));
  const std::string prefix = "dlk_context_create: backend 'cuda': ";
  CHECK_THAT(out.error, Catch::StartsWith(prefix));
  CHECK(out.error.size() > prefix.size() + 10);  // a reason, not just the name
  CHECK_FALSE(out.context_written);
}

TEST_CASE("env: DLK_BACKEND=auto falls back to cpu and says so at DLK_VERBOSE=2", "[env]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "auto");
  ScopedEnv verbose("DLK_VERBOSE", "2");
  StderrCapture capture;
  const Outcome out = create(nullptr);
  const auto dispatch = lines_starting(capture.lines(), "dlk_verbose,dispatch,");
  expect_success(out.status);
  if (std::string(out.info.backend) == "cuda") {
    WARN("auto chose cuda here; the fallback needs a machine without it");
    return;
  }
  CHECK(std::string(out.info.backend) == "cpu");
  REQUIRE(dispatch.size() == 1);
  CHECK_THAT(dispatch[0], Catch::StartsWith("dlk_verbose,dispatch,backend: auto skipped cuda ("));
  CHECK_THAT(dispatch[0], Catch::EndsWith("), chose cpu"));
}

TEST_CASE("env: DLK_CPU_ISA takes each tier the CPU has; one it lacks is unavailable, saying what it has",
          "[env]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  ScopedEnv verbose("DLK_VERBOSE", "2");
  const std::string hardware = hardware_isa();
  for (const std::string asked : {"avx512", "avx2", "scalar"}) {
    INFO("DLK_CPU_ISA=" << asked << " on a CPU with " << hardware);
    ScopedEnv isa("DLK_CPU_ISA", asked.c_str());
    StderrCapture capture;
    const Outcome out = create(nullptr);
    const auto dispatch = lines_starting(capture.lines(), "dlk_verbose,dispatch,");
    CHECK(dispatch.empty());
    if (isa_rank(asked) > isa_rank(hardware)) {
      CHECK(status_name(out.status) == status_name(DLK_STATUS_BACKEND_UNAVAILABLE));
      CHECK_THAT(out.error, Catch::StartsWith("dlk_context_create: DLK_CPU_ISA=" + asked +
                                              ": this CPU cannot run it; it has " + hardware + " ("));
      CHECK_FALSE(out.context_written);
    } else {
      expect_success(out.status);
      CHECK(out.info.isa == asked);
    }
  }
}

TEST_CASE("env: DLK_CPU_ISA rejects an unknown value, listing the valid ones", "[env]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  for (const char *value : {"sse4", "AVX2", "", "avx512f"}) {
    INFO("DLK_CPU_ISA='" << value << "'");
    ScopedEnv isa("DLK_CPU_ISA", value);
    expect_unknown_value(create(nullptr), "DLK_CPU_ISA", kIsas);
  }
}

TEST_CASE("env: DLK_NUM_THREADS takes an integer from 1 to 4096", "[env]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  for (int threads : {1, 2, 7, 4096}) {
    INFO("DLK_NUM_THREADS=" << threads);
    ScopedEnv env("DLK_NUM_THREADS", std::to_string(threads).c_str());
    const Outcome out = create(nullptr);
    expect_success(out.status);
    CHECK(out.info.num_threads == threads);
  }
}

TEST_CASE("env: DLK_NUM_THREADS rejects anything else, giving the valid range", "[env]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  for (const char *value : {"0", "-1", "4097", "abc", "2x", "1.5", "", "99999999999999999999",
                            " 2", "\t3", "2 ", "+2", "0x10"}) {
    INFO("DLK_NUM_THREADS='" << value << "'");
    ScopedEnv env("DLK_NUM_THREADS", value);
    expect_unknown_value(create(nullptr), "DLK_NUM_THREADS", "an integer from 1 to 4096");
  }
}

TEST_CASE("env: DLK_VERBOSE takes 0, 1 and 2", "[env]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  for (const char *value : {"0", "1", "2"}) {
    INFO("DLK_VERBOSE=" << value);
    ScopedEnv env("DLK_VERBOSE", value);
    StderrCapture capture;  // level 1 and 2 describe the new context on stderr
    expect_success(create(nullptr).status);
    const auto info = lines_starting(capture.lines(), "dlk_verbose,info,context,backend=cpu,");
    CHECK(info.size() == (std::string(value) == "0" ? 0u : 1u));
  }
}

TEST_CASE("env: DLK_VERBOSE rejects anything else, giving the valid range", "[env]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  for (const char *value : {"3", "-1", "yes", "", "1 ", " 1", "+1"}) {
    INFO("DLK_VERBOSE='" << value << "'");
    ScopedEnv env("DLK_VERBOSE", value);
    expect_unknown_value(create(nullptr), "DLK_VERBOSE", "an integer from 0 to 2");
  }
}

TEST_CASE("env: DLK_CUDA_TF32 rejects anything but 0 and 1, giving the valid range", "[env]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  for (const char *value : {"0", "1"}) {
    ScopedEnv env("DLK_CUDA_TF32", value);
    expect_success(create(nullptr).status);
  }
  for (const char *value : {"2", "-1", "yes", "", " 1"}) {
    INFO("DLK_CUDA_TF32='" << value << "'");
    ScopedEnv env("DLK_CUDA_TF32", value);
    expect_unknown_value(create(nullptr), "DLK_CUDA_TF32", "an integer from 0 to 1");
  }
}

TEST_CASE("env: DLK_CUDA_DETERMINISTIC takes 0 and 1, rejects anything else giving the valid range",
          "[env]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  for (const char *value : {"0", "1"}) {
    ScopedEnv env("DLK_CUDA_DETERMINISTIC", value);
    expect_success(create(nullptr).status);
  }
  for (const char *value : {"2", "-1", "yes", "", " 0"}) {
    INFO("DLK_CUDA_DETERMINISTIC='" << value << "'");
    ScopedEnv env("DLK_CUDA_DETERMINISTIC", value);
    expect_unknown_value(create(nullptr), "DLK_CUDA_DETERMINISTIC", "an integer from 0 to 1");
  }
}

TEST_CASE("env: DLK_CUDA_CONV takes cudnn and im2col, rejects anything else listing them", "[env]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  for (const char *value : {"cudnn", "im2col"}) {
    ScopedEnv env("DLK_CUDA_CONV", value);
    expect_success(create(nullptr).status);
  }
  for (const char *value : {"cuDNN", "", "gemm", "im2col "}) {
    INFO("DLK_CUDA_CONV='" << value << "'");
    ScopedEnv env("DLK_CUDA_CONV", value);
    expect_unknown_value(create(nullptr), "DLK_CUDA_CONV", "cudnn, im2col");
  }
}

TEST_CASE("env: DLK_CPU_GEMM takes auto, blocked and unpacked, rejects anything else listing them",
          "[env]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  for (const char *value : {"auto", "blocked", "unpacked"}) {
    ScopedEnv env("DLK_CPU_GEMM", value);
    expect_success(create(nullptr).status);
  }
  for (const char *value : {"Auto", "", "packed", "blocked "}) {
    INFO("DLK_CPU_GEMM='" << value << "'");
    ScopedEnv env("DLK_CPU_GEMM", value);
    expect_unknown_value(create(nullptr), "DLK_CPU_GEMM", "auto, blocked, unpacked");
  }
}

TEST_CASE("env: an option left at its default reads the environment", "[env]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  ScopedEnv threads("DLK_NUM_THREADS", "3");
  ScopedEnv isa("DLK_CPU_ISA", "scalar");
  const dlk_context_options options = default_options();
  const Outcome out = create(&options);
  expect_success(out.status);
  CHECK(out.info.num_threads == 3);
  CHECK(std::string(out.info.isa) == "scalar");
}

TEST_CASE("env: options given in code win over the environment", "[env]") {
  CleanDlkEnvironment clean;
  dlk_context_options options = default_options();

  SECTION("backend: the environment is not even read") {
    ScopedEnv env("DLK_BACKEND", "not-a-backend");
    options.backend = "cpu";
    const Outcome out = create(&options);
    expect_success(out.status);
    CHECK(std::string(out.info.backend) == "cpu");
  }
  SECTION("cpu_isa") {
    ScopedEnv backend("DLK_BACKEND", "cpu");
    ScopedEnv env("DLK_CPU_ISA", "scalar");
    const std::string hardware = hardware_isa();
    options.cpu_isa = hardware.c_str();
    CHECK(create(&options).info.isa == hardware);
    ScopedEnv bad("DLK_CPU_ISA", "not-an-isa");
    options.cpu_isa = "scalar";
    CHECK(std::string(create(&options).info.isa) == "scalar");
  }
  SECTION("num_threads") {
    ScopedEnv backend("DLK_BACKEND", "cpu");
    ScopedEnv env("DLK_NUM_THREADS", "5");
    options.num_threads = 2;
    CHECK(create(&options).info.num_threads == 2);
    ScopedEnv bad("DLK_NUM_THREADS", "many");
    CHECK(create(&options).info.num_threads == 2);
  }
  SECTION("verbose") {
    ScopedEnv backend("DLK_BACKEND", "cpu");
    ScopedEnv env("DLK_VERBOSE", "2");
    options.verbose = 0;
    StderrCapture capture;
    expect_success(create(&options).status);
    CHECK(capture.lines().empty());
    ScopedEnv bad("DLK_VERBOSE", "loud");
    expect_success(create(&options).status);
  }
}

TEST_CASE("env: each option's rule, naming the option", "[env]") {
  CleanDlkEnvironment clean;
  struct Case {
    const char *broken;
    void (*edit)(dlk_context_options &);
    const char *argument;
    const char *valid;  // listed in the message, when the option is a name
  };
  const std::vector<Case> cases = {
      {"backend unknown", [](dlk_context_options &o) { o.backend = "tpu"; }, "options->backend", "auto, cpu, cuda, fpga_sim"},
      {"backend empty", [](dlk_context_options &o) { o.backend = ""; }, "options->backend", "auto, cpu, cuda, fpga_sim"},
      {"cpu_isa unknown", [](dlk_context_options &o) { o.cpu_isa = "neon"; }, "options->cpu_isa", "avx512, avx2, scalar"},
      {"cpu_isa empty", [](dlk_context_options &o) { o.cpu_isa = ""; }, "options->cpu_isa", "avx512, avx2, scalar"},
      {"num_threads < 0", [](dlk_context_options &o) { o.num_threads = -1; }, "options->num_threads", nullptr},
      {"num_threads > 4096", [](dlk_context_options &o) { o.num_threads = 4097; }, "options->num_threads", nullptr},
      {"verbose 3", [](dlk_context_options &o) { o.verbose = 3; }, "options->verbose", nullptr},
      {"verbose -2", [](dlk_context_options &o) { o.verbose = -2; }, "options->verbose", nullptr},
      {"device < 0", [](dlk_context_options &o) { o.device = -1; }, "options->device", nullptr},
      {"allow_tf32 2", [](dlk_context_options &o) { o.allow_tf32 = 2; }, "options->allow_tf32", nullptr},
      {"allow_tf32 -2", [](dlk_context_options &o) { o.allow_tf32 = -2; }, "options->allow_tf32", nullptr},
  };
  for (const Case &c : cases) {
    INFO("broken: " << c.broken);
    dlk_context_options options = default_options();
    options.backend = "cpu";
    c.edit(options);
    const Outcome out = create(&options);
    if (c.valid)
      expect_unknown_value(out, c.argument, c.valid);
    else
      expect_rejected(out.status, "dlk_context_create", c.argument);
    CHECK_FALSE(out.context_written);
  }
}

TEST_CASE("env: DLK_FPGA_SIM_CONFIG set but empty is rejected, not taken as unset", "[env]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  ScopedEnv env("DLK_FPGA_SIM_CONFIG", "");
  expect_unknown_value(create(nullptr), "DLK_FPGA_SIM_CONFIG", "a path (not empty)");
  dlk_context_options options = default_options();
  options.fpga_sim_config = "";
  expect_unknown_value(create(&options), "options->fpga_sim_config", "a path (not empty)");
}

TEST_CASE("env: a huge value gives a short message that still ends with the valid values", "[env]") {
  CleanDlkEnvironment clean;
  const std::string huge(100000, '7');
  struct Case {
    const char *variable;
    const std::string valid;
  };
  for (const Case &c : {Case{"DLK_BACKEND", kBackends}, Case{"DLK_CPU_ISA", kIsas},
                        Case{"DLK_NUM_THREADS", "an integer from 1 to 4096"},
                        Case{"DLK_VERBOSE", "an integer from 0 to 2"}}) {
    INFO(c.variable);
    ScopedEnv backend("DLK_BACKEND", "cpu");  // replaced by `env` in the DLK_BACKEND case
    ScopedEnv env(c.variable, huge.c_str());
    const Outcome out = create(nullptr);
    expect_unknown_value(out, c.variable, c.valid);
    CHECK(out.error.size() < 300);
    CHECK_THAT(out.error, Catch::EndsWith("; valid values: " + c.valid));
    CHECK_THAT(out.error, Catch::Contains("... (100000 bytes)"));
  }
}

TEST_CASE("env: a rejected value is quoted with its control bytes escaped", "[env]") {
  CleanDlkEnvironment clean;
  ScopedEnv backend("DLK_BACKEND", "cpu");
  ScopedEnv env("DLK_NUM_THREADS", "\t3\n");
  const Outcome out = create(nullptr);
  CHECK_THAT(out.error, Catch::Contains("has value '\\t3\\n'; valid values:"));
}
