#include "core/cpu_features.hpp"

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

namespace dlk::core {
namespace {

uint64_t xgetbv0() {
  uint32_t eax, edx;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<uint64_t>(edx) << 32) | eax;
}

// Asks Linux for the AMX tile data state (arch_prctl ARCH_REQ_XCOMP_PERM for
// XFEATURE_XTILEDATA, Linux 5.16 on); a tile instruction without it faults.
bool os_grants_amx_tiles() {
  constexpr int kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
}

std::string brand_string() {
  unsigned a, b, c, d;
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) == 0 || a < 0x80000004u) return "unknown CPU";
  char brand[49] = {};
  for (unsigned leaf = 0; leaf < 3; ++leaf) {
    __get_cpuid(0x80000002u + leaf, &a, &b, &c, &d);
    std::memcpy(brand + 16 * leaf, &a, 4);
    std::memcpy(brand + 16 * leaf + 4, &b, 4);
    std::memcpy(brand + 16 * leaf + 8, &c, 4);
    std::memcpy(brand + 16 * leaf + 12, &d, 4);
  }
  std::string s(brand);
  const auto first = s.find_first_not_of(' ');
  const auto last = s.find_last_not_of(' ');
  return first == std::string::npos ? "unknown CPU" : s.substr(first, last - first + 1);
}

double nominal_clock_hz() {
  std::ifstream max_freq("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  double khz = 0;
  if (max_freq >> khz && khz > 0) return khz * 1e3;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("cpu MHz", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos) return std::stod(line.substr(colon + 1)) * 1e6;
  }
  return 0;
}

CpuFeatures detect() {
  CpuFeatures f;
  f.model = brand_string();
  f.nominal_hz = nominal_clock_hz();
  unsigned a, b, c, d;
  if (__get_cpuid(0, &a, &b, &c, &d) != 0) {
    char vendor[13] = {};
    std::memcpy(vendor, &b, 4);
    std::memcpy(vendor + 4, &d, 4);
    std::memcpy(vendor + 8, &c, 4);
    f.vendor = vendor;
  }
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return f;
  // Display family and model as the vendors define them: the extended fields
  // count only for family 15 (and, for the model, Intel's family 6).
  const int base_family = (a >> 8) & 0xf, base_model = (a >> 4) & 0xf;
  f.family = base_family == 0xf ? base_family + ((a >> 20) & 0xff) : base_family;
  f.model_number = base_family == 0xf || base_family == 6 ? base_model + (((a >> 16) & 0xf) << 4)
                                                          : base_model;
  const bool osxsave = (c >> 27) & 1u;
  if (!osxsave) return f;
  const uint64_t xcr0 = xgetbv0();
  const bool os_ymm = (xcr0 & 0x6u) == 0x6u;       // SSE and AVX state
  const bool os_zmm = (xcr0 & 0xe6u) == 0xe6u;     // plus opmask and both zmm halves
  const bool fma = (c >> 12) & 1u;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return f;
  f.avx2 = os_ymm && ((b >> 5) & 1u);
  f.fma = os_ymm && fma;
  f.avx512f = os_zmm && ((b >> 16) & 1u);
  f.avx512dq = f.avx512f && ((b >> 17) & 1u);
  f.avx512bw = f.avx512f && ((b >> 30) & 1u);
  f.avx512vl = f.avx512f && ((b >> 31) & 1u);
  f.avx512_vnni = f.avx512f && ((c >> 11) & 1u);
  f.avx512_fp16 = f.avx512f && ((d >> 23) & 1u);
  // XCR0 bits 17 and 18: the OS saves the tile configuration and data.
  const bool os_tiles = (xcr0 & 0x60000u) == 0x60000u;
  const bool amx_tile = os_tiles && ((d >> 24) & 1u);
  // dlk's AMX kernels store their tiles with AVX-512.
  if (amx_tile && f.avx512bw && (((d >> 22) & 1u) || ((d >> 25) & 1u)) && os_grants_amx_tiles()) {
    f.amx_bf16 = (d >> 22) & 1u;
    f.amx_int8 = (d >> 25) & 1u;
  }
  unsigned a1, b1, c1, d1;
  if (__get_cpuid_count(7, 1, &a1, &b1, &c1, &d1) != 0) f.avx512_bf16 = f.avx512f && ((a1 >> 5) & 1u);
  return f;
}

}  // namespace

const CpuFeatures &cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

}  // namespace dlk::core
