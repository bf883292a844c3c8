#include "compression/isa.hpp"

#include <xsimd/config/xsimd_cpuid.hpp>

#include <atomic>
#include <string>
#include <vector>

#include "common/env_value.hpp"
#include "compression/error.hpp"

namespace dlk::codec {
namespace {

// The one environment variable of libdlk_compress.
//   DLK_COMPRESS_ISA   avx512 | avx2 | scalar   default: the best tier the CPU has
// Parsed by the rule every dlk variable follows (common/env_value.hpp).
constexpr const char *kIsaVariable = "DLK_COMPRESS_ISA";

// g_choice holds an Isa value, or one of these.
constexpr int kUnresolved = -1;
constexpr int kUnknownInEnvironment = -2;
constexpr int kUnavailableInEnvironment = -3;

std::atomic<int> g_choice{kUnresolved};

// avx512 needs F, BW and DQ (the kernels use no VL forms); avx2 also uses F16C,
// which every AVX2 processor has and xsimd 8.1 does not report.
Isa best_isa() {
  const auto cpu = xsimd::available_architectures();
  if (cpu.avx512f && cpu.avx512bw && cpu.avx512dq) return Isa::avx512;
  if (cpu.avx2) return Isa::avx2;
  return Isa::scalar;
}

constexpr Isa kTiers[] = {Isa::avx512, Isa::avx2, Isa::scalar};

bool parse_isa(const std::string &name, Isa &isa, std::string &rule) {
  static const std::vector<std::string> names(
      {kernel_table(kTiers[0]).isa, kernel_table(kTiers[1]).isa, kernel_table(kTiers[2]).isa});
  size_t index = 0;
  if (!env::parse_choice(name, names, index, rule)) return false;
  isa = kTiers[index];
  return true;
}

int default_choice() {
  const auto value = env::read(kIsaVariable);
  if (!value) return static_cast<int>(best_isa());
  Isa isa;
  std::string rule;
  if (!parse_isa(*value, isa, rule)) return kUnknownInEnvironment;
  if (isa > best_isa()) return kUnavailableInEnvironment;
  return static_cast<int>(isa);
}

[[noreturn]] void throw_unavailable(const char *call, const std::string &what) {
  throw_unsupported(call, what + " names a tier this CPU lacks (the best it has: " +
                              kernel_table(best_isa()).isa + ")");
}

const KernelTable &kernels_of(const char *call, int choice) {
  if (choice >= 0) return kernel_table(static_cast<Isa>(choice));
  const std::string value = env::read(kIsaVariable).value_or("");
  Isa isa;
  std::string rule;
  if (choice == kUnknownInEnvironment && !parse_isa(value, isa, rule))
    throw_invalid(call, kIsaVariable, rule);
  throw_unavailable(call, std::string(kIsaVariable) + "=" + env::quote(value));
}

}  // namespace

const KernelTable &active_kernels(const char *call) {
  int choice = g_choice.load(std::memory_order_acquire);
  if (choice == kUnresolved) {
    choice = default_choice();
    g_choice.store(choice, std::memory_order_release);
  }
  return kernels_of(call, choice);
}

void select_isa(const char *call, const char *name) {
  if (!name) {
    const int choice = default_choice();
    g_choice.store(choice, std::memory_order_release);
    kernels_of(call, choice);  // reports a bad DLK_COMPRESS_ISA
    return;
  }
  Isa isa;
  std::string rule;
  if (!parse_isa(name, isa, rule)) throw_invalid(call, "isa", rule);
  if (isa > best_isa()) throw_unavailable(call, "isa " + env::quote(name));
  g_choice.store(static_cast<int>(isa), std::memory_order_release);
}

}  // namespace dlk::codec
