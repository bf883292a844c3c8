// The ceilings of a device backend (cuda), measured through dlk's public API as
// any program would reach them: memory bandwidth as the best of dlk_memcpy
// device-to-device copies (bytes read + written per second, as a STREAM copy
// counts them), and the peak of each dtype as the best rate of dlk_gemm on a
// large square problem (f32 on CUDA cores, bf16 x bf16 -> f32 and s8 x s8 -> s32
// on tensor cores, int8 in cuBLASLt's own layout), beside the theoretical
// figures dlk_context_get_info gives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dlk/dlk.hpp"
#include "perf/ceilings/ceilings.hpp"
#include "perf/common/report_table.hpp"

namespace dlk::perf {

struct DevicePeak {
  std::string dtype;   // "f32", "bf16", "int8"
  double theoretical;  // ops/s from dlk_context_get_info; 0: unknown
  Summary measured;    // ops/s over the runs; the ceiling is the best
  std::string method;
};

struct DeviceCeilings {
  Ceiling memory;                 // "device_copy", byte/s
  std::vector<DevicePeak> peaks;  // f32, bf16, int8
  // The roofline's two: the f32 peak and the copy bandwidth.
  RoofCeilings roof_ceilings() const;
};

struct DeviceCeilingOptions {
  size_t copy_bytes = size_t{1} << 30;  // each copy reads and writes this much
  std::int64_t gemm_size = 8192;        // m = n = k
  int runs = 7;
};

DeviceCeilings measure_device_ceilings(dlk::Context &context, const DeviceCeilingOptions &options);

// One row per peak: dtype, measured (best), median, theoretical, % of it, runs, method.
ReportTable device_peaks_table(const DeviceCeilings &ceilings);

}  // namespace dlk::perf
