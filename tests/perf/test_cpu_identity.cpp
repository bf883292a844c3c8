#include <catch2/catch.hpp>

#include "perf/machine/cpu_identity.hpp"
#include "perf/ceilings/fma_peak.hpp"

using namespace dlk::perf;

namespace {
CpuIdentity amd(int family, int model) {
  CpuIdentity cpu;
  cpu.vendor = "AuthenticAMD";
  cpu.family = family;
  cpu.model = model;
  cpu.fma = cpu.avx2 = cpu.avx512f = cpu.avx512bw = cpu.avx512vl = true;
  cpu.avx512_vnni = cpu.avx512_bf16 = true;
  return cpu;
}
}  // namespace

TEST_CASE("Zen 4 runs AVX-512 on 256-bit pipes: 32 FP32 FLOP per cycle", "[perf][cpu]") {
  const CoreThroughput t = core_throughput(amd(25, 17));
  CHECK(t.microarchitecture == "Zen 4");
  CHECK(t.f32_avx512 == 32);
  CHECK(t.f32_avx2 == 32);
  CHECK(t.bf16_avx512 == 64);
  CHECK(t.int8_avx512 == 128);
  CHECK(t.l1_read == 64);
}

TEST_CASE("Zen 5 server and desktop cores run full-width AVX-512: 64 FLOP per cycle", "[perf][cpu]") {
  const CoreThroughput t = core_throughput(amd(26, 2));
  CHECK(t.microarchitecture == "Zen 5");
  CHECK(t.f32_avx512 == 64);
  CHECK(t.f32_avx2 == 32);
  CHECK(t.bf16_avx512 == 128);
  CHECK(t.int8_avx512 == 256);
  CHECK(t.l1_read == 128);
  // Mobile Zen 5 keeps 256-bit pipes.
  CHECK(core_throughput(amd(26, 0x24)).f32_avx512 == 32);
}

TEST_CASE("a CPU without the extension has no theoretical figure for it", "[perf][cpu]") {
  CpuIdentity cpu = amd(25, 17);
  cpu.avx512_bf16 = cpu.avx512_vnni = false;
  const CoreThroughput t = core_throughput(cpu);
  CHECK(t.bf16_avx512 == 0);
  CHECK(t.int8_avx512 == 0);
}

TEST_CASE("an unknown microarchitecture gets no guessed figure", "[perf][cpu]") {
  CpuIdentity intel = amd(6, 0x55);
  intel.vendor = "GenuineIntel";
  const CoreThroughput t = core_throughput(intel);
  CHECK(t.microarchitecture == "unknown");
  CHECK(t.f32_avx512 == 0);
  CHECK(core_throughput(amd(0x15, 1)).f32_avx2 == 0);  // Bulldozer era
}

TEST_CASE("peak loops exist only for the extensions the CPU has", "[perf][cpu]") {
  CpuIdentity cpu = amd(25, 17);
  cpu.avx512_bf16 = false;
  std::vector<std::string> names;
  for (const PeakLoop &l : peak_loops(cpu)) names.push_back(l.dtype + ":" + simd_isa_name(l.isa));
  CHECK(names == std::vector<std::string>{"f32:avx512", "f32:avx2", "f32:scalar", "int8:avx512"});
  cpu.avx512f = cpu.avx512_vnni = false;
  CHECK(peak_loops(cpu).size() == 2);
}

TEST_CASE("the int8 loop names the EVEX form, never AVX-VNNI", "[perf][cpu]") {
  for (const PeakLoop &l : peak_loops(amd(25, 17)))
    if (l.dtype == "int8") CHECK(l.instruction.find("EVEX") != std::string::npos);
}

TEST_CASE("this machine's identity is readable", "[perf][cpu]") {
  const CpuIdentity &cpu = cpu_identity();
  CHECK_FALSE(cpu.vendor.empty());
  CHECK(cpu.family > 0);
  CHECK_FALSE(cpu.isa_text().empty());
  // What the kernels' dispatch relies on: AVX-512 implies AVX2 on every CPU that has it.
  if (cpu.avx512f) CHECK(cpu.avx2);
}
