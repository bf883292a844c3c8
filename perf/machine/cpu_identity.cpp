#include "perf/machine/cpu_identity.hpp"

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace dlk::perf {
namespace {

std::uint64_t xgetbv0() {
  std::uint32_t eax, edx;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<std::uint64_t>(edx) << 32) | eax;
}

std::string trimmed(const char *text) {
  std::string s(text);
  const auto first = s.find_first_not_of(' ');
  if (first == std::string::npos) return "unknown CPU";
  return s.substr(first, s.find_last_not_of(' ') - first + 1);
}

CpuIdentity detect() {
  CpuIdentity cpu;
  unsigned a, b, c, d;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return cpu;
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  cpu.vendor = vendor;

  cpu.brand = "unknown CPU";
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) != 0 && a >= 0x80000004u) {
    unsigned brand[12] = {};
    for (unsigned leaf = 0; leaf < 3; ++leaf)
      __get_cpuid(0x80000002u + leaf, &brand[4 * leaf], &brand[4 * leaf + 1],
                  &brand[4 * leaf + 2], &brand[4 * leaf + 3]);
    char text[49] = {};
    std::memcpy(text, brand, 48);
    cpu.brand = trimmed(text);
  }

  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return cpu;
  const int base_family = (a >> 8) & 0xf, base_model = (a >> 4) & 0xf;
  cpu.family = base_family == 0xf ? base_family + static_cast<int>((a >> 20) & 0xff) : base_family;
  cpu.model = (base_family == 0x6 || base_family == 0xf)
                  ? base_model + static_cast<int>(((a >> 16) & 0xf) << 4)
                  : base_model;
  if (!((c >> 27) & 1u)) return cpu;  // no OSXSAVE: no AVX state saved
  const std::uint64_t xcr0 = xgetbv0();
  const bool os_ymm = (xcr0 & 0x6u) == 0x6u;
  const bool os_zmm = (xcr0 & 0xe6u) == 0xe6u;
  const bool fma = (c >> 12) & 1u;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return cpu;
  cpu.fma = os_ymm && fma;
  cpu.avx2 = os_ymm && ((b >> 5) & 1u);
  cpu.avx512f = os_zmm && ((b >> 16) & 1u);
  cpu.avx512bw = cpu.avx512f && ((b >> 30) & 1u);
  cpu.avx512vl = cpu.avx512f && ((b >> 31) & 1u);
  cpu.avx512_vnni = cpu.avx512f && ((c >> 11) & 1u);
  cpu.avx512_fp16 = cpu.avx512f && ((d >> 23) & 1u);
  // XCR0 bits 17-18: tile state; arch_prctl(ARCH_REQ_XCOMP_PERM, XTILEDATA).
  const bool os_tiles = (xcr0 & 0x60000u) == 0x60000u && ((d >> 24) & 1u);
  if (os_tiles && syscall(SYS_arch_prctl, 0x1023, 18) == 0) {
    cpu.amx_bf16 = (d >> 22) & 1u;
    cpu.amx_int8 = (d >> 25) & 1u;
  }
  unsigned a1, b1, c1, d1;
  if (__get_cpuid_count(7, 1, &a1, &b1, &c1, &d1) != 0) {
    cpu.avx_vnni = os_ymm && ((a1 >> 4) & 1u);
    cpu.avx512_bf16 = cpu.avx512f && ((a1 >> 5) & 1u);
  }
  return cpu;
}

}  // namespace

std::string CpuIdentity::isa_text() const {
  std::string out;
  auto add = [&](bool has, const char *name) {
    if (!has) return;
    if (!out.empty()) out += ' ';
    out += name;
  };
  add(fma, "fma");
  add(avx2, "avx2");
  add(avx_vnni, "avx_vnni");
  add(avx512f, "avx512f");
  add(avx512bw, "avx512bw");
  add(avx512vl, "avx512vl");
  add(avx512_vnni, "avx512_vnni");
  add(avx512_bf16, "avx512_bf16");
  add(avx512_fp16, "avx512_fp16");
  add(amx_bf16, "amx_bf16");
  add(amx_int8, "amx_int8");
  return out.empty() ? "baseline x86-64" : out;
}

const CpuIdentity &cpu_identity() {
  static const CpuIdentity cpu = detect();
  return cpu;
}

CoreThroughput core_throughput(const CpuIdentity &cpu) {
  CoreThroughput t;
  t.microarchitecture = "unknown";
  if (cpu.vendor != "AuthenticAMD") return t;
  // AMD's optimization guides (Software Optimization Guide for family 19h and
  // 1Ah): two 256-bit FMA pipes on Zen 2-4, which split a zmm op in two halves;
  // two 512-bit FMA pipes on Zen 5 desktop/server cores. Both have two FADD
  // pipes beside the two FMUL/FMA ones (4 scalar mulss/addss per cycle), two
  // loads per cycle of the vector width, 64 B/cycle L2 -> L1, 32 B/cycle L3 -> L2.
  const bool zen2_or_3 = cpu.family == 0x17 || (cpu.family == 0x19 && cpu.model < 0x10) ||
                         (cpu.family == 0x19 && cpu.model >= 0x20 && cpu.model < 0x60);
  const bool zen4 = cpu.family == 0x19 && !zen2_or_3;
  // Zen 5 mobile cores (Strix, Krackan: models 0x20-0x2f, 0x60-0x7f) keep 256-bit pipes.
  const bool zen5_half = cpu.family == 0x1a && ((cpu.model >= 0x20 && cpu.model < 0x30) ||
                                                (cpu.model >= 0x60 && cpu.model < 0x80));
  const bool zen5 = cpu.family == 0x1a;
  if (!(zen2_or_3 || zen4 || zen5)) return t;
  t.microarchitecture = zen2_or_3 ? "Zen 2/3" : zen4 ? "Zen 4" : zen5_half ? "Zen 5 (256-bit)" : "Zen 5";
  const double vector_bytes = (zen5 && !zen5_half) ? 64 : 32;  // width of one FMA pipe
  const double fma_lanes_f32 = 2 * vector_bytes / 4;           // two pipes
  t.f32_avx2 = 2 * 2 * 8;
  t.f32_avx512 = cpu.avx512f ? 2 * fma_lanes_f32 : 0;
  t.f32_scalar = 4;
  // vdpbf16ps: 2 bf16 products + 2 adds per f32 lane; vpdpbusd: 4 u8 x s8
  // products + 4 adds per s32 lane. Both run on the FMA pipes.
  t.bf16_avx512 = cpu.avx512_bf16 ? 2 * t.f32_avx512 : 0;
  t.int8_avx512 = cpu.avx512_vnni ? 4 * t.f32_avx512 : 0;
  t.l1_read = 2 * vector_bytes;
  t.l2_read = 64;
  t.l3_read = 32;
  return t;
}

}  // namespace dlk::perf
