// The backend registry and module loader against fake_backend_module.cpp, which
// sits beside this program as libdlk_cuda.so.<abi> (the program links libdlk's
// objects, so core looks for modules here): a loaded module, one that declines,
// one that rejects an option, auto's choice, and the UNSUPPORTED rule of every op.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tests/core/scoped_env.hpp"
#include "tests/core/stderr_capture.hpp"
#include "tests/core/validation_support.hpp"

using namespace dlk_test;

namespace {

// device picks the fake's answer: 0 loads, 1 declines, 2 rejects the option.
dlk_status create(dlk_context_t *context, const char *backend, int device, int verbose = 0) {
  dlk_context_options options;
  dlk_context_options_init(&options);
  options.backend = backend;
  options.device = device;
  options.verbose = verbose;
  options.num_threads = 1;
  return dlk_context_create(context, &options);
}

std::string backend_of(dlk_context_t context) {
  dlk_context_info info;
  REQUIRE(dlk_context_get_info(context, &info) == DLK_STATUS_SUCCESS);
  return info.backend;
}

// The fake as a context for one test.
class FakeContext {
 public:
  FakeContext() {
    const dlk_status status = create(&context_, "cuda", 0);
    INFO("dlk_last_error(): " << dlk_last_error());
    REQUIRE(status == DLK_STATUS_SUCCESS);
  }
  ~FakeContext() { dlk_context_destroy(context_); }
  FakeContext(const FakeContext &) = delete;
  FakeContext &operator=(const FakeContext &) = delete;
  dlk_context_t get() const { return context_; }

 private:
  dlk_context_t context_ = nullptr;
};

}  // namespace

TEST_CASE("fake module: DLK_BACKEND=cuda loads the module beside libdlk", "[registry]") {
  FakeContext context;
  CHECK(backend_of(context.get()) == "fake_cuda");
}

TEST_CASE("fake module: an op the backend does not implement is UNSUPPORTED, outputs untouched",
          "[registry]") {
  FakeContext context;
  SentinelBuffer a, b, c;
  dlk_gemm_desc gemm;
  dlk_conv2d_desc conv;
  dlk_conv2d_desc_init(&conv, DLK_DTYPE_F32, 1, 2, 5, 5, 3, 3, 3);
  dlk_pool2d_desc pool;
  dlk_pool2d_desc_init(&pool, DLK_POOL_MAX, DLK_DTYPE_F32, 1, 2, 4, 4, 2, 2);
  int32_t *argmax = reinterpret_cast<int32_t *>(c.data() + 4096);
  struct Case {
    std::string message;
    std::function<dlk_status()> call;
  };
  const std::vector<Case> cases = {
      {"dlk_gemm: backend 'fake_cuda' does not implement gemm for f16:f16:f32",
       [&] {
         dlk_gemm_desc_init(&gemm, DLK_DTYPE_F16, DLK_DTYPE_F16, DLK_DTYPE_F32, 4, 5, 3);
         return dlk_gemm(context.get(), &gemm, a.data(), b.data(), c.data());
       }},
      {"dlk_gemm: backend 'fake_cuda' does not implement gemm for u8:s8:s32",
       [&] {
         dlk_gemm_desc_init(&gemm, DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_S32, 4, 5, 3);
         return dlk_gemm(context.get(), &gemm, a.data(), b.data(), c.data());
       }},
      {"dlk_conv2d_forward: backend 'fake_cuda' does not implement conv2d_forward for f32:f32:f32",
       [&] { return dlk_conv2d_forward(context.get(), &conv, a.data(), b.data(), nullptr, c.data()); }},
      {"dlk_conv2d_backward_data: backend 'fake_cuda' does not implement conv2d_backward_data for f32:f32:f32",
       [&] { return dlk_conv2d_backward_data(context.get(), &conv, a.data(), b.data(), c.data()); }},
      {"dlk_conv2d_backward_weights: backend 'fake_cuda' does not implement conv2d_backward_weights for "
       "f32:f32:f32",
       [&] { return dlk_conv2d_backward_weights(context.get(), &conv, a.data(), b.data(), c.data(), nullptr); }},
      {"dlk_pool2d_forward: backend 'fake_cuda' does not implement pool2d_forward for f32:f32:f32",
       [&] { return dlk_pool2d_forward(context.get(), &pool, a.data(), c.data(), argmax); }},
      {"dlk_pool2d_backward: backend 'fake_cuda' does not implement pool2d_backward for f32:f32:f32",
       [&] { return dlk_pool2d_backward(context.get(), &pool, a.data(), argmax, c.data()); }},
  };
  for (const Case &unsupported : cases) {
    INFO("expected: " << unsupported.message);
    const dlk_status status = unsupported.call();
    CHECK(status_name(status) == status_name(DLK_STATUS_UNSUPPORTED));
    CHECK(dlk_last_error() == unsupported.message);
    CHECK(a.untouched());
    CHECK(b.untouched());
    CHECK(c.untouched());
  }
  // What it implements runs.
  dlk_gemm_desc_init(&gemm, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 4, 5, 3);
  expect_success(dlk_gemm(context.get(), &gemm, a.data(), b.data(), c.data()));
}

TEST_CASE("fake module: arguments are validated before support is asked", "[registry]") {
  FakeContext context;
  SentinelBuffer a, b, c;
  dlk_conv2d_desc conv;
  dlk_conv2d_desc_init(&conv, DLK_DTYPE_F32, 1, 2, 5, 5, 3, 3, 3);
  conv.stride_h = 0;
  expect_rejected(dlk_conv2d_forward(context.get(), &conv, a.data(), b.data(), nullptr, c.data()),
                  "dlk_conv2d_forward", "stride_h");
  CHECK(c.untouched());
}

TEST_CASE("fake module: dlk_context_supports says what the backend implements", "[registry]") {
  FakeContext context;
  int supported = -1;
  expect_success(dlk_context_supports(context.get(), DLK_OP_GEMM, DLK_DTYPE_F32, DLK_DTYPE_F32,
                                      DLK_DTYPE_F32, &supported));
  CHECK(supported == 1);
  expect_success(dlk_context_supports(context.get(), DLK_OP_CONV2D_FORWARD, DLK_DTYPE_F32,
                                      DLK_DTYPE_F32, DLK_DTYPE_F32, &supported));
  CHECK(supported == 0);
}

TEST_CASE("fake module: a module that declines leaves the backend unavailable, saying why", "[registry]") {
  dlk_context_t context = nullptr;
  const dlk_status status = create(&context, "cuda", 1);
  CHECK(status_name(status) == status_name(DLK_STATUS_BACKEND_UNAVAILABLE));
  CHECK(std::string(dlk_last_error()) == "dlk_context_create: backend 'cuda': fake: no device here");
  CHECK(context == nullptr);
}

TEST_CASE("fake module: a module's invalid option keeps its status and message", "[registry]") {
  dlk_context_t context = nullptr;
  expect_rejected(create(&context, "cuda", 2), "dlk_context_create", "options->device");
  CHECK(std::string(dlk_last_error()) ==
        "dlk_context_create: argument 'options->device' is 2; the fake has 0 and 1");
  CHECK(context == nullptr);
}

TEST_CASE("fake module: TF32 reaches the backend only when options->allow_tf32 or DLK_CUDA_TF32 "
          "opts in; the option wins",
          "[registry][env]") {
  CleanDlkEnvironment clean;
  struct Case {
    int option;
    const char *env;  // NULL: unset
    bool allowed;
  };
  const Case cases[] = {{-1, nullptr, false}, {-1, "0", false}, {-1, "1", true},
                        {1, nullptr, true},   {0, "1", false},  {1, "0", true}};
  for (const Case &c : cases) {
    INFO("options->allow_tf32 = " << c.option << ", DLK_CUDA_TF32=" << (c.env ? c.env : "(unset)"));
    ScopedEnv env("DLK_CUDA_TF32", c.env);
    dlk_context_options options;
    dlk_context_options_init(&options);
    options.backend = "cuda";
    options.allow_tf32 = c.option;
    dlk_context_t context = nullptr;
    REQUIRE(dlk_context_create(&context, &options) == DLK_STATUS_SUCCESS);
    dlk_context_info info;
    REQUIRE(dlk_context_get_info(context, &info) == DLK_STATUS_SUCCESS);
    CHECK(std::string(info.device) == (c.allowed ? "fake device, tf32 allowed" : "fake device"));
    dlk_context_destroy(context);
  }
}

TEST_CASE("fake module: DLK_CUDA_DETERMINISTIC=0 reaches the backend; unset or 1 keeps it deterministic",
          "[registry][env]") {
  CleanDlkEnvironment clean;
  for (const char *value : {static_cast<const char *>(nullptr), "1", "0"}) {
    INFO("DLK_CUDA_DETERMINISTIC=" << (value ? value : "(unset)"));
    ScopedEnv env("DLK_CUDA_DETERMINISTIC", value);
    dlk_context_t context = nullptr;
    REQUIRE(create(&context, "cuda", 0) == DLK_STATUS_SUCCESS);
    dlk_context_info info;
    REQUIRE(dlk_context_get_info(context, &info) == DLK_STATUS_SUCCESS);
    const bool opted_out = value && std::string(value) == "0";
    CHECK(std::string(info.device) == (opted_out ? "fake device, nondeterministic" : "fake device"));
    dlk_context_destroy(context);
  }
}

TEST_CASE("fake module: auto takes the module when it loads and skips it when it declines",
          "[registry]") {
  CleanDlkEnvironment clean;
  for (int device : {0, 1}) {
    INFO("device " << device);
    StderrCapture capture;
    dlk_context_t context = nullptr;
    REQUIRE(create(&context, "auto", device, 2) == DLK_STATUS_SUCCESS);
    const std::string backend = backend_of(context);
    dlk_context_destroy(context);
    const auto dispatch = lines_starting(capture.lines(), "dlk_verbose,dispatch,");
    REQUIRE(dispatch.size() == 1);
    if (device == 0) {
      CHECK(backend == "fake_cuda");
      CHECK(dispatch[0] == "dlk_verbose,dispatch,backend: auto chose cuda");
    } else {
      CHECK(backend == "cpu");
      CHECK(dispatch[0] ==
            "dlk_verbose,dispatch,backend: auto skipped cuda (backend 'cuda': fake: no device here), chose cpu");
    }
  }
}
