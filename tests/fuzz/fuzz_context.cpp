// libFuzzer target: dlk_context_create with options (and DLK_* environment
// values) built from the fuzzer's bytes, then dlk_context_get_info and
// dlk_context_supports on what it made. A failure must leave *context as it was
// and name the call; a success must describe a context whose settings are valid.
#include <cstdlib>

#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace dlk_fuzz;

// A string from the fuzzer: mostly a valid name, sometimes its bytes as they come.
std::string text(Bytes &in, const char *const *valid, int count) {
  const uint8_t b = in.u8();
  if (b < 200) return valid[b % count];
  std::string s(in.u8() % 80, '\0');
  for (char &c : s) c = char(in.u8() | 1);  // no NUL inside: C strings end there
  return s;
}

const char *const kBackends[] = {"auto", "cpu", "fpga_sim", "cuda", ""};
const char *const kIsas[] = {"avx512", "avx2", "scalar", " avx2", ""};
const char *const kNumbers[] = {"1", "2", "0", "4096", "4097", " 2", "2 ", "+1", "-1", ""};
const char *const kQuiet[] = {"0", " 0", "0 ", "", "3"};  // DLK_VERBOSE values that print nothing
const char *const kVariables[] = {"DLK_BACKEND", "DLK_CPU_ISA", "DLK_NUM_THREADS", "DLK_VERBOSE",
                                  "DLK_FPGA_SIM_CONFIG"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in(data, size);
  // The environment first: each variable unset, or set from the fuzzer. Verbose
  // output stays off (it would flood the fuzzer's log).
  for (const char *name : kVariables) unsetenv(name);
  std::string env_values[5];
  for (int i = 0; i < 4; ++i)
    if (in.flag()) {
      env_values[i] = i == 0   ? text(in, kBackends, 5)
                      : i == 1 ? text(in, kIsas, 5)
                      : i == 2 ? text(in, kNumbers, 10)
                               : kQuiet[in.u8() % 5];
      setenv(kVariables[i], env_values[i].c_str(), 1);
    }

  dlk_context_options options;
  dlk_context_options_init(&options);
  const std::string backend = text(in, kBackends, 5), isa = text(in, kIsas, 5);
  if (in.flag()) options.backend = backend.c_str();
  if (in.flag()) options.cpu_isa = isa.c_str();
  if (in.flag()) options.num_threads = int(in.dim() % 5000) - (in.flag() ? 2 : 0);
  options.verbose = in.flag() ? 0 : int(in.u8() % 8) - 4;
  if (options.verbose > 0) options.verbose = 0;
  if (in.flag()) options.device = int(in.dim() % 3) - 1;

  const dlk_context_t kUntouched = reinterpret_cast<dlk_context_t>(uintptr_t{0x5a5a0});
  dlk_context_t context = kUntouched;
  const dlk_status status = dlk_context_create(in.u8() == 255 ? nullptr : &context, &options);
  if (status != DLK_STATUS_SUCCESS) {
    require(context == kUntouched);
    require(std::string(dlk_last_error()).rfind("dlk_context_create: ", 0) == 0);
    return 0;
  }
  require(context != kUntouched && context != nullptr);
  dlk_context_info info;
  require(dlk_context_get_info(context, &info) == DLK_STATUS_SUCCESS);
  require(info.num_threads >= 1 && info.num_threads <= 4096);
  // Enum arguments in their ranges: C++ cannot pass an enum value outside them
  // (core's own check of such values is fuzzed through the descriptors).
  static const dlk_op kOps[] = {DLK_OP_GEMM, DLK_OP_CONV2D_FORWARD, DLK_OP_CONV2D_BACKWARD_DATA,
                                DLK_OP_CONV2D_BACKWARD_WEIGHTS, DLK_OP_POOL2D_FORWARD,
                                DLK_OP_POOL2D_BACKWARD};
  static const dlk_dtype kTypes[] = {DLK_DTYPE_F32, DLK_DTYPE_F16, DLK_DTYPE_BF16,
                                     DLK_DTYPE_S8,  DLK_DTYPE_U8,  DLK_DTYPE_S32};
  const dlk_op op_arg = kOps[in.u8() % 6];
  const dlk_dtype types[3] = {kTypes[in.u8() % 6], kTypes[in.u8() % 6], kTypes[in.u8() % 6]};
  int supported = -1;
  const dlk_status s = dlk_context_supports(context, op_arg, types[0], types[1], types[2],
                                            in.flag() ? nullptr : &supported);
  require(s != DLK_STATUS_SUCCESS || supported == 0 || supported == 1);
  dlk_context_destroy(context);
  return 0;
}
