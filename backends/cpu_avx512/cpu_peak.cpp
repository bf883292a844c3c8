#include "backends/cpu_avx512/cpu_peak.hpp"

#include <algorithm>

namespace dlk::cpu {
namespace {

struct PeakRow {
  int family, first_model, last_model;
  double flops_per_cycle;
};

// AMD only: Intel parts of one model differ in their number of AVX-512 FMA
// units (one or two), which CPUID does not tell.
constexpr PeakRow kAmdPeaks[] = {
    {0x17, 0x00, 0x2f, 16}, {0x17, 0x30, 0xff, 32}, {0x19, 0x00, 0xff, 32},
    {0x1a, 0x20, 0x2f, 32}, {0x1a, 0x60, 0x7f, 32}, {0x1a, 0x00, 0xff, 64},
};

double tier_cap(core::CpuIsa isa) {
  switch (isa) {
    case core::CpuIsa::avx512: return 64;
    case core::CpuIsa::avx2: return 32;
    case core::CpuIsa::scalar: break;
  }
  return 16;
}

}  // namespace

double fp32_flops_per_cycle(const core::CpuFeatures &cpu, core::CpuIsa isa) {
  if (cpu.vendor != "AuthenticAMD") return 0;
  for (const PeakRow &row : kAmdPeaks)  // first match wins
    if (cpu.family == row.family && cpu.model_number >= row.first_model &&
        cpu.model_number <= row.last_model)
      return std::min(row.flops_per_cycle, tier_cap(isa));
  return 0;
}

bool bf16_dot_outpaces_fma(const core::CpuFeatures &cpu) {
  return cpu.avx512_bf16 && cpu.vendor == "AuthenticAMD";
}

}  // namespace dlk::cpu
