// Which CPU this is (CPUID vendor, family, model, brand, ISA extensions) and what
// its cores can do per cycle, for the theoretical ceilings. dlk-perf uses dlk
// through the public API only, so it reads CPUID itself: the public API says
// which ISA tier a context runs, not the microarchitecture behind it.
#pragma once

#include <string>

namespace dlk::perf {

struct CpuIdentity {
  std::string vendor;  // "AuthenticAMD", "GenuineIntel", ...
  std::string brand;   // brand string, e.g. "AMD EPYC"
  int family = 0;      // display family (base + extended)
  int model = 0;       // display model (base + extended << 4)
  // Usable here: the CPU has them and the OS saves their registers.
  bool fma = false, avx2 = false;
  bool avx512f = false, avx512bw = false, avx512vl = false;
  bool avx512_vnni = false, avx512_bf16 = false, avx512_fp16 = false;
  bool avx_vnni = false;  // the VEX form of vpdpbusd (Zen 4 lacks it)
  // AMX tiles with bf16 / int8 products, and Linux's leave to use them (asked
  // for here: the peak loops run them).
  bool amx_bf16 = false, amx_int8 = false;

  // "avx512f avx512bw ... " of the extensions above that are present, in that order.
  std::string isa_text() const;
};

// Read once.
const CpuIdentity &cpu_identity();

// Work a core can retire per cycle at most, from the microarchitecture's
// published execution width. 0 means "not known for this CPU": the ceiling
// then has no theoretical figure, never a guessed one.
struct CoreThroughput {
  std::string microarchitecture;  // "Zen 4", "Zen 5", ... or "unknown"
  double f32_avx512 = 0;          // FLOP/cycle, vfmadd231ps zmm
  double f32_avx2 = 0;            // FLOP/cycle, vfmadd231ps ymm
  double f32_scalar = 0;          // FLOP/cycle, mulss + addss
  double bf16_avx512 = 0;         // FLOP/cycle, vdpbf16ps zmm
  double int8_avx512 = 0;         // OP/cycle, vpdpbusd zmm (EVEX)
  double l1_read = 0;             // bytes/cycle into the core's registers
  double l2_read = 0;             // bytes/cycle from L2 to L1
  double l3_read = 0;             // bytes/cycle from L3 to L2, per core
};

// From vendor, family and model (brand only for the description).
CoreThroughput core_throughput(const CpuIdentity &cpu);

}  // namespace dlk::perf
