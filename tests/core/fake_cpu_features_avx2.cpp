// Stands in for core/cpu_features.cpp in core_fake_machine_test: a CPU with AVX2
// and FMA but no AVX-512, so that asking for avx512 must fail even on a machine
// that has it.
#include "core/cpu_features.hpp"

namespace dlk::core {

const CpuFeatures &cpu_features() {
  static const CpuFeatures features = [] {
    CpuFeatures f;
    f.avx2 = f.fma = true;
    f.model = "test CPU with AVX2, without AVX-512";
    f.nominal_hz = 3e9;
    return f;
  }();
  return features;
}

}  // namespace dlk::core
