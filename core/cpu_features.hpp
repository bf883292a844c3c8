// What the CPU and the operating system let us run, read once with cpuid/xgetbv.
#pragma once

#include <string>

namespace dlk::core {

struct CpuFeatures {
  bool avx2 = false, fma = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false;
  bool avx512_vnni = false, avx512_bf16 = false, avx512_fp16 = false;
  // AMX tiles with bf16 and int8 products, and the kernel's leave to use them
  // (Linux hands out the 8 KiB tile state per process, on request).
  bool amx_bf16 = false, amx_int8 = false;
  std::string vendor;      // "AuthenticAMD", "GenuineIntel", ...
  int family = 0, model_number = 0;  // display family and model (CPUID leaf 1)
  std::string model;       // brand string
  double nominal_hz = 0;   // cpufreq's maximum, else /proc/cpuinfo; 0 when neither says
};

const CpuFeatures &cpu_features();

}  // namespace dlk::core
