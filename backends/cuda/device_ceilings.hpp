// The theoretical ceilings dlk_context_get_info reports for a GPU, from its
// properties (SM count, clock, memory clock and bus width) and the per-SM
// throughput NVIDIA publishes for its architecture. Pure host logic, tested
// without a GPU (tests/cuda/device_ceilings_test.cpp); dlk-perf measures the
// achieved figures.
#pragma once

#include <string>

#include "core/backend.hpp"

namespace dlk::cuda {

// Dense operations per clock per SM (an FMA counts 2); 0 where this build does
// not know the architecture.
struct SmThroughput {
  double f32 = 0;   // CUDA cores
  double tf32 = 0;  // tensor cores
  double f16 = 0, bf16 = 0, int8 = 0;
};
SmThroughput sm_throughput(int major, int minor);

struct DeviceProperties {
  std::string name;
  int major = 0, minor = 0;
  int sm_count = 0;
  double clock_hz = 0;         // SM clock (the maximum the driver reports)
  double memory_clock_hz = 0;  // before the double data rate
  int memory_bus_bits = 0;
};

// f32's peak is the TF32 tensor cores' when the context allows TF32 (its f32
// GEMMs run there), else the CUDA cores'.
core::DeviceInfo device_info(const DeviceProperties &props, bool allow_tf32);

}  // namespace dlk::cuda
