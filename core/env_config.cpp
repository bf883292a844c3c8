#include "core/env_config.hpp"

#include <sched.h>

#include <optional>
#include <string>
#include <utility>

#include "common/env_value.hpp"
#include "core/cpu_features.hpp"
#include "core/validate.hpp"

namespace dlk::core {
namespace {

constexpr const char *kCall = "dlk_context_create";
const std::vector<std::string> kBackends = {"auto", "cpu", "cuda", "fpga_sim"};
const std::vector<std::string> kCudaConvs = {"cudnn", "im2col"};
const std::vector<std::string> kCpuGemms = {"auto", "blocked", "unpacked"};
const std::vector<std::string> kIsas = {"avx512", "avx2", "scalar"};
constexpr int kMaxThreads = 4096;

// The value from code when given, else from the environment, else none; `source`
// names where it came from, for the error message. Both follow the one rule of
// common/env_value.hpp: an empty string is a value (and an invalid one), never
// the same as unset.
std::optional<std::string> pick(const char *from_code, const char *option_name,
                                const char *env_name, std::string &source) {
  if (from_code) {
    source = option_name;
    return std::string(from_code);
  }
  source = env_name;
  return env::read(env_name);
}

std::string choice(const std::string &value, const std::string &source,
                   const std::vector<std::string> &valid) {
  size_t index = 0;
  std::string rule;
  if (!env::parse_choice(value, valid, index, rule)) throw_invalid(kCall, source.c_str(), rule);
  return valid[index];
}

int parse_int(const std::string &value, const char *source, int lo, int hi) {
  long long v = 0;
  std::string rule;
  if (!env::parse_integer(value, lo, hi, v, rule)) throw_invalid(kCall, source, rule);
  return static_cast<int>(v);
}

CpuIsa best_isa() {
  const CpuFeatures &f = cpu_features();
  if (f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq) return CpuIsa::avx512;
  if (f.avx2 && f.fma) return CpuIsa::avx2;
  return CpuIsa::scalar;
}

CpuIsa isa_from_name(const std::string &name) {
  if (name == "avx512") return CpuIsa::avx512;
  if (name == "avx2") return CpuIsa::avx2;
  return CpuIsa::scalar;
}

// The ISA extensions the CPU tiers use, as the error for a tier the CPU lacks
// lists them.
std::string feature_list(const CpuFeatures &f) {
  const std::pair<bool, const char *> flags[] = {
      {f.avx2, "avx2"},         {f.fma, "fma"},           {f.avx512f, "avx512f"},
      {f.avx512bw, "avx512bw"}, {f.avx512vl, "avx512vl"}, {f.avx512dq, "avx512dq"}};
  std::string list;
  for (const auto &[present, name] : flags)
    if (present) list += (list.empty() ? "" : " ") + std::string(name);
  return list.empty() ? "none of avx2, fma, avx512f" : list;
}

int cores_available() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  const int n = CPU_COUNT(&set);
  return n > 0 ? n : 1;
}

}  // namespace

const char *cpu_isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::avx512: return "avx512";
    case CpuIsa::avx2: return "avx2";
    case CpuIsa::scalar: return "scalar";
  }
  return "scalar";
}

const std::vector<EnvVar> &env_vars() {
  static const std::vector<EnvVar> vars = {
      {"DLK_BACKEND", "auto, cpu, cuda, fpga_sim", "auto",
       "default backend of a new context; auto = cuda when usable, else cpu"},
      {"DLK_CPU_ISA", "avx512, avx2, scalar", "the best the CPU has",
       "ISA tier of the CPU backend; one the CPU lacks is an error"},
      {"DLK_NUM_THREADS", "integer from 1 to 4096", "the cores the process may run on", "CPU threads"},
      {"DLK_VERBOSE", "0, 1, 2", "0",
       "1: one line per op on stderr; 2: also dispatch decisions"},
      {"DLK_FPGA_SIM_CONFIG", "path", "built-in array", "accelerator description (JSON)"},
      {"DLK_CPU_GEMM", "auto, blocked, unpacked", "auto",
       "the cpu backend's f32 dlk_gemm: packed blocked loops or unpacked loops by the rule, or one of them"},
      {"DLK_CUDA_CONV", "cudnn, im2col", "cudnn",
       "the cuda backend's float conv2d forward: cuDNN, or dlk's im2col kernel feeding cuBLASLt"},
      {"DLK_CUDA_TF32", "0, 1", "0",
       "1: the cuda backend may run f32 GEMM and conv on TF32 tensor cores (faster, less precise)"},
      {"DLK_CUDA_DETERMINISTIC", "0, 1", "1",
       "0: the cuda backend's conv2d takes cuDNN's timed fastest algorithm, atomics included (same bits "
       "run to run no longer promised)"},
  };
  return vars;
}

ContextConfig resolve_context_config(const dlk_context_options *options) {
  dlk_context_options defaults;
  dlk_context_options_init(&defaults);
  if (options)
    check::struct_size(kCall, "options", options, options->struct_size,
                       sizeof(dlk_context_options), "dlk_context_options_init");
  const dlk_context_options &o = options ? *options : defaults;
  ContextConfig cfg;
  std::string source;

  const auto backend = pick(o.backend, "options->backend", "DLK_BACKEND", source);
  cfg.backend = backend ? choice(*backend, source, kBackends) : "auto";

  const CpuIsa hardware = best_isa();
  const auto isa = pick(o.cpu_isa, "options->cpu_isa", "DLK_CPU_ISA", source);
  if (!isa) {
    cfg.backend_config.cpu_isa = hardware;
  } else {
    const CpuIsa asked = isa_from_name(choice(*isa, source, kIsas));
    // A tier the CPU lacks would run instructions it does not have: refuse it,
    // saying what the CPU has, rather than run something else than asked.
    if (asked > hardware)
      throw Error(DLK_STATUS_BACKEND_UNAVAILABLE,
                  std::string(kCall) + ": " + source + "=" + *isa +
                      ": this CPU cannot run it; it has " + cpu_isa_name(hardware) + " (" +
                      feature_list(cpu_features()) + ")");
    cfg.backend_config.cpu_isa = asked;
  }

  if (o.num_threads < 0 || o.num_threads > kMaxThreads)
    throw_invalid(kCall, "options->num_threads",
                  "is " + std::to_string(o.num_threads) +
                      "; must be 0 (from DLK_NUM_THREADS) or 1 to " + std::to_string(kMaxThreads));
  if (o.num_threads > 0) {
    cfg.backend_config.num_threads = o.num_threads;
  } else if (const auto env = env::read("DLK_NUM_THREADS")) {
    cfg.backend_config.num_threads = parse_int(*env, "DLK_NUM_THREADS", 1, kMaxThreads);
  } else {
    cfg.backend_config.num_threads = cores_available();
  }

  if (o.verbose < -1 || o.verbose > 2)
    throw_invalid(kCall, "options->verbose", "must be -1 (from DLK_VERBOSE), 0, 1 or 2");
  if (o.verbose >= 0) {
    cfg.backend_config.verbose = o.verbose;
  } else if (const auto env = env::read("DLK_VERBOSE")) {
    cfg.backend_config.verbose = parse_int(*env, "DLK_VERBOSE", 0, 2);
  }

  const auto fpga_sim_config =
      pick(o.fpga_sim_config, "options->fpga_sim_config", "DLK_FPGA_SIM_CONFIG", source);
  std::string rule;
  if (fpga_sim_config && !env::parse_path(*fpga_sim_config, rule))
    throw_invalid(kCall, source.c_str(), rule);
  cfg.backend_config.fpga_sim_config = fpga_sim_config.value_or("");
  if (o.device < 0) throw_invalid(kCall, "options->device", "must be >= 0");
  cfg.backend_config.device = o.device;
  cfg.backend_config.stream = o.stream;

  if (const auto gemm = env::read("DLK_CPU_GEMM")) {
    const std::string path = choice(*gemm, "DLK_CPU_GEMM", kCpuGemms);
    cfg.backend_config.cpu_gemm = path == "blocked"    ? CpuGemmPath::blocked
                                  : path == "unpacked" ? CpuGemmPath::unpacked
                                                       : CpuGemmPath::rule;
  }

  if (const auto conv = env::read("DLK_CUDA_CONV"))
    cfg.backend_config.cuda_conv_im2col = choice(*conv, "DLK_CUDA_CONV", kCudaConvs) == "im2col";
  if (const auto deterministic = env::read("DLK_CUDA_DETERMINISTIC"))
    cfg.backend_config.cuda_deterministic = parse_int(*deterministic, "DLK_CUDA_DETERMINISTIC", 0, 1) == 1;

  if (o.allow_tf32 < -1 || o.allow_tf32 > 1)
    throw_invalid(kCall, "options->allow_tf32", "must be -1 (from DLK_CUDA_TF32), 0 or 1");
  if (o.allow_tf32 >= 0) {
    cfg.backend_config.allow_tf32 = o.allow_tf32 == 1;
  } else if (const auto env = env::read("DLK_CUDA_TF32")) {
    cfg.backend_config.allow_tf32 = parse_int(*env, "DLK_CUDA_TF32", 0, 1) == 1;
  }
  return cfg;
}

}  // namespace dlk::core
