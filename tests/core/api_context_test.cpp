// The rules of the library and context calls (core/api_context.cpp): names of enum
// values, context create/destroy, info, supports, last op; and the NULL context
// rule of every call that takes one.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "tests/core/c_enum_calls.h"
#include "tests/core/validation_support.hpp"

using namespace dlk_test;

TEST_CASE("dlk_get_version matches the header", "[api][context]") {
  const dlk_version v = dlk_get_version();
  CHECK(v.major == DLK_VERSION_MAJOR);
  CHECK(v.minor == DLK_VERSION_MINOR);
  CHECK(v.patch == DLK_VERSION_PATCH);
  CHECK(v.abi == DLK_ABI_VERSION);
}

TEST_CASE("enum names: every value has one, values outside the enum are 'unknown'", "[api][context]") {
  CHECK(std::string(dlk_status_name(DLK_STATUS_SUCCESS)) == "success");
  CHECK(std::string(dlk_status_name(DLK_STATUS_INVALID_ARGUMENT)) == "invalid_argument");
  CHECK(std::string(dlk_status_name(DLK_STATUS_UNSUPPORTED)) == "unsupported");
  CHECK(std::string(dlk_status_name(DLK_STATUS_OUT_OF_MEMORY)) == "out_of_memory");
  CHECK(std::string(dlk_status_name(DLK_STATUS_BACKEND_UNAVAILABLE)) == "backend_unavailable");
  CHECK(std::string(dlk_status_name(DLK_STATUS_RUNTIME_ERROR)) == "runtime_error");
  CHECK(std::string(dlk_status_name(DLK_STATUS_INTERNAL_ERROR)) == "internal_error");
  CHECK(std::string(c_status_name(7)) == "unknown");
  CHECK(std::string(c_status_name(-1)) == "unknown");

  const std::vector<std::pair<dlk_dtype, std::string>> dtypes = {
      {DLK_DTYPE_F32, "f32"}, {DLK_DTYPE_F16, "f16"}, {DLK_DTYPE_BF16, "bf16"},
      {DLK_DTYPE_S8, "s8"},   {DLK_DTYPE_U8, "u8"},   {DLK_DTYPE_S32, "s32"}};
  const std::vector<size_t> sizes = {4, 2, 2, 1, 1, 4};
  for (size_t i = 0; i < dtypes.size(); ++i) {
    CHECK(dlk_dtype_name(dtypes[i].first) == dtypes[i].second);
    CHECK(dlk_dtype_size(dtypes[i].first) == sizes[i]);
  }
  for (int outside : {0, 7, -1, 1000}) {
    INFO("dtype " << outside);
    CHECK(std::string(c_dtype_name(outside)) == "unknown");
    CHECK(c_dtype_size(outside) == 0);
  }

  CHECK(std::string(dlk_op_name(DLK_OP_GEMM)) == "gemm");
  CHECK(std::string(dlk_op_name(DLK_OP_CONV2D_FORWARD)) == "conv2d_forward");
  CHECK(std::string(dlk_op_name(DLK_OP_CONV2D_BACKWARD_DATA)) == "conv2d_backward_data");
  CHECK(std::string(dlk_op_name(DLK_OP_CONV2D_BACKWARD_WEIGHTS)) == "conv2d_backward_weights");
  CHECK(std::string(dlk_op_name(DLK_OP_POOL2D_FORWARD)) == "pool2d_forward");
  CHECK(std::string(dlk_op_name(DLK_OP_POOL2D_BACKWARD)) == "pool2d_backward");
  CHECK(std::string(c_op_name(0)) == "unknown");
  CHECK(std::string(c_op_name(7)) == "unknown");
}

TEST_CASE("the *_init functions accept NULL", "[api][context]") {
  dlk_context_options_init(nullptr);
  dlk_gemm_desc_init(nullptr, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 1, 1, 1);
  dlk_conv2d_desc_init(nullptr, DLK_DTYPE_F32, 1, 1, 1, 1, 1, 1, 1);
  dlk_pool2d_desc_init(nullptr, DLK_POOL_MAX, DLK_DTYPE_F32, 1, 1, 1, 1, 1, 1);
  SUCCEED("no crash");
}

TEST_CASE("dlk_context_create: context NULL is rejected", "[api][context]") {
  dlk_context_options options;
  dlk_context_options_init(&options);
  options.backend = "cpu";
  expect_rejected(dlk_context_create(nullptr, &options), "dlk_context_create", "context");
}

TEST_CASE("dlk_context_destroy: NULL succeeds, and clears the last error", "[api][context]") {
  dlk_context_create(nullptr, nullptr);
  REQUIRE(std::string(dlk_last_error()) != "");
  expect_success(dlk_context_destroy(nullptr));
}

TEST_CASE("dlk_context_get_info: rules and a success", "[api][context]") {
  TestContext context;
  expect_rejected(dlk_context_get_info(context.get(), nullptr), "dlk_context_get_info", "info");

  dlk_context_info info;
  std::memset(&info, 0xA5, sizeof info);
  const dlk_context_info before = info;
  expect_rejected(dlk_context_get_info(nullptr, &info), "dlk_context_get_info", "context");
  CHECK(std::memcmp(&info, &before, sizeof info) == 0);

  expect_success(dlk_context_get_info(context.get(), &info));
  CHECK(std::string(info.backend) == "cpu");
  CHECK(info.num_threads == 1);  // TestContext asks for one
  CHECK(std::string(info.isa) != "");
}

TEST_CASE("dlk_context_supports: rules and a success", "[api][context]") {
  TestContext context;
  int supported = -5;
  expect_rejected(dlk_context_supports(context.get(), DLK_OP_GEMM, DLK_DTYPE_F32, DLK_DTYPE_F32,
                                       DLK_DTYPE_F32, nullptr),
                  "dlk_context_supports", "supported");
  const std::vector<std::pair<std::vector<int>, const char *>> outside = {
      {{0, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32}, "op"},
      {{7, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32}, "op"},
      {{DLK_OP_GEMM, 0, DLK_DTYPE_F32, DLK_DTYPE_F32}, "a_type"},
      {{DLK_OP_POOL2D_FORWARD, DLK_DTYPE_F32, 99, DLK_DTYPE_F32}, "b_type"},
      {{DLK_OP_CONV2D_FORWARD, DLK_DTYPE_F32, DLK_DTYPE_F32, -1}, "c_type"},
  };
  for (const auto &[values, argument] : outside) {
    INFO("argument " << argument);
    expect_rejected(c_context_supports(context.get(), values[0], values[1], values[2], values[3], &supported),
                    "dlk_context_supports", argument);
    CHECK(supported == -5);
  }
  expect_rejected(dlk_context_supports(nullptr, DLK_OP_GEMM, DLK_DTYPE_F32, DLK_DTYPE_F32,
                                       DLK_DTYPE_F32, &supported),
                  "dlk_context_supports", "context");
  CHECK(supported == -5);

  expect_success(dlk_context_supports(context.get(), DLK_OP_GEMM, DLK_DTYPE_F32, DLK_DTYPE_F32,
                                      DLK_DTYPE_F32, &supported));
  CHECK(supported == 1);  // the CPU backend implements every op and type core accepts
}

TEST_CASE("dlk_context_supports: 0 for type signatures the API does not define", "[api][context]") {
  TestContext context;
  struct Case {
    dlk_op op;
    dlk_dtype a, b, c;
  };
  const std::vector<Case> undefined = {
      {DLK_OP_GEMM, DLK_DTYPE_F32, DLK_DTYPE_S8, DLK_DTYPE_U8},
      {DLK_OP_GEMM, DLK_DTYPE_S8, DLK_DTYPE_U8, DLK_DTYPE_S32},
      {DLK_OP_GEMM, DLK_DTYPE_F16, DLK_DTYPE_BF16, DLK_DTYPE_F32},
      {DLK_OP_CONV2D_FORWARD, DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_BF16},
      {DLK_OP_CONV2D_BACKWARD_DATA, DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_S32},
      {DLK_OP_POOL2D_FORWARD, DLK_DTYPE_S32, DLK_DTYPE_S32, DLK_DTYPE_S32},
      {DLK_OP_POOL2D_BACKWARD, DLK_DTYPE_S8, DLK_DTYPE_S8, DLK_DTYPE_S8},
  };
  for (const Case &c : undefined) {
    INFO(dlk_op_name(c.op) << " " << dlk_dtype_name(c.a) << ":" << dlk_dtype_name(c.b) << ":"
                           << dlk_dtype_name(c.c));
    int supported = -5;
    expect_success(dlk_context_supports(context.get(), c.op, c.a, c.b, c.c, &supported));
    CHECK(supported == 0);
  }
}

TEST_CASE("dlk_context_last_op: rules, then the record of a GEMM", "[api][context]") {
  TestContext context;
  dlk_op_record record;
  std::memset(&record, 0xA5, sizeof record);
  const dlk_op_record before = record;
  expect_rejected(dlk_context_last_op(context.get(), &record), "dlk_context_last_op", "context");
  CHECK(std::memcmp(&record, &before, sizeof record) == 0);
  expect_rejected(dlk_context_last_op(nullptr, &record), "dlk_context_last_op", "context");
  expect_rejected(dlk_context_last_op(context.get(), nullptr), "dlk_context_last_op", "record");

  dlk_gemm_desc desc;
  dlk_gemm_desc_init(&desc, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 2, 3, 4);
  std::vector<float> a(8, 1.0f), b(12, 1.0f), c(6, 0.0f);
  REQUIRE(dlk_gemm(context.get(), &desc, a.data(), b.data(), c.data()) == DLK_STATUS_SUCCESS);
  expect_success(dlk_context_last_op(context.get(), &record));
  CHECK(record.op == DLK_OP_GEMM);
  CHECK(record.flops == 2.0 * 2 * 3 * 4);
  CHECK(std::string(record.implementation) != "");
}

TEST_CASE("every call that takes a context rejects NULL, naming 'context'", "[api][context]") {
  unsigned char buffer[64] = {};
  void *ptr = nullptr;
  int supported = 0;
  dlk_context_info info;
  dlk_op_record record;
  const std::vector<std::pair<const char *, std::function<dlk_status()>>> calls = {
      {"dlk_context_get_info", [&] { return dlk_context_get_info(nullptr, &info); }},
      {"dlk_context_supports",
       [&] { return dlk_context_supports(nullptr, DLK_OP_GEMM, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, &supported); }},
      {"dlk_context_last_op", [&] { return dlk_context_last_op(nullptr, &record); }},
      {"dlk_malloc", [&] { return dlk_malloc(nullptr, 64, &ptr); }},
      {"dlk_free", [&] { return dlk_free(nullptr, buffer); }},
      {"dlk_memcpy", [&] { return dlk_memcpy(nullptr, buffer, buffer + 32, 16, DLK_COPY_HOST_TO_DEVICE); }},
      {"dlk_synchronize", [&] { return dlk_synchronize(nullptr); }},
      // The ops check it too (with their descriptors) in validate_*_test.cpp.
      {"dlk_gemm", [&] { return dlk_gemm(nullptr, nullptr, buffer, buffer, buffer); }},
      {"dlk_conv2d_forward", [&] { return dlk_conv2d_forward(nullptr, nullptr, buffer, buffer, nullptr, buffer); }},
      {"dlk_conv2d_backward_data", [&] { return dlk_conv2d_backward_data(nullptr, nullptr, buffer, buffer, buffer); }},
      {"dlk_conv2d_backward_weights",
       [&] { return dlk_conv2d_backward_weights(nullptr, nullptr, buffer, buffer, buffer, nullptr); }},
      {"dlk_pool2d_forward", [&] { return dlk_pool2d_forward(nullptr, nullptr, buffer, buffer, nullptr); }},
      {"dlk_pool2d_backward", [&] { return dlk_pool2d_backward(nullptr, nullptr, buffer, nullptr, buffer); }},
  };
  for (const auto &[name, call] : calls) {
    INFO("call: " << name);
    expect_rejected(call(), name, "context");
  }
  CHECK(ptr == nullptr);
}

TEST_CASE("the last error is per thread", "[api][context]") {
  dlk_context_create(nullptr, nullptr);
  const std::string here = dlk_last_error();
  std::string there = "not run";
  std::thread([&] { there = dlk_last_error(); }).join();
  CHECK(here != "");
  CHECK(there == "");
}

namespace {

// CPUID display family and model as /proc/cpuinfo prints them, and the vendor.
struct CpuId {
  std::string vendor;
  int family = -1, model = -1;
};

CpuId read_cpuinfo() {
  std::ifstream in("/proc/cpuinfo");
  CpuId id;
  for (std::string line; std::getline(in, line) && (id.family < 0 || id.model < 0 || id.vendor.empty());) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string value = line.substr(colon + 2);
    if (line.rfind("vendor_id", 0) == 0) id.vendor = value;
    if (line.rfind("cpu family", 0) == 0) id.family = std::stoi(value);
    if (line.rfind("model\t", 0) == 0) id.model = std::stoi(value);
  }
  return id;
}

double max_clock_hz() {
  std::ifstream in("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  double khz = 0;
  return in >> khz ? khz * 1e3 : 0;
}

}  // namespace

TEST_CASE("cpu info: the FP32 peak is the CPU's FLOP/cycle/core x clock x threads, 0 if unknown",
          "[api][context]") {
  const CpuId id = read_cpuinfo();
  const double hz = max_clock_hz();
  if (hz == 0) {
    WARN("no cpufreq maximum here: the peak uses /proc/cpuinfo's current clock, not checked");
    return;
  }
  // The documented table (backends/cpu_avx512/cpu_peak.hpp) for the machines dlk runs on.
  double per_cycle = 0;
  if (id.vendor == "AuthenticAMD" && id.family == 0x19) per_cycle = 32;  // Zen 3, Zen 4
  if (id.vendor == "AuthenticAMD" && id.family == 0x1a)                  // Zen 5
    per_cycle = (id.model >= 0x20 && id.model <= 0x2f) || (id.model >= 0x60 && id.model <= 0x7f) ? 32 : 64;
  INFO(id.vendor << " family " << id.family << " model " << id.model);
  for (const char *isa : {"avx512", "avx2", "scalar"}) {
    dlk_context_options options;
    dlk_context_options_init(&options);
    options.backend = "cpu";
    options.cpu_isa = isa;
    options.num_threads = 3;
    dlk_context_t context = nullptr;
    if (dlk_context_create(&context, &options) != DLK_STATUS_SUCCESS) continue;  // a tier it lacks
    dlk_context_info info;
    expect_success(dlk_context_get_info(context, &info));
    dlk_context_destroy(context);
    const double cap = std::string(isa) == "avx512" ? 64 : std::string(isa) == "avx2" ? 32 : 16;
    INFO("isa " << isa);
    CHECK(info.peak_f32_flops == Approx(std::min(per_cycle, cap) * hz * 3));
  }
}
