#include "perf/ceilings/dtype_peaks.hpp"

#include <fmt/format.h>

#include <string>

#include "perf/machine/cpu_identity.hpp"
#include "perf/ceilings/fma_peak.hpp"

namespace dlk::perf {

PeakRow theoretical_dtype_peaks(const dlk_context_info &info) {
  const std::string method = std::string("theoretical, from dlk_context_get_info of backend ") + info.backend;
  return {info.num_threads, info.peak_f32_flops, info.peak_bf16_flops, info.peak_int8_ops, method, method, method};
}

PeakRow measure_dtype_peaks(const dlk_context_info &info, int threads) {
  PeakOptions options;
  options.runs = 9;
  const SimdIsa isa = simd_isa_from_name(info.isa);
  const PeakMeasurement m = measure_fp32_peak(isa, threads, options);
  const double f32 = info.peak_f32_flops;
  const std::string derived = "derived from FP32 by the context's theoretical ratio";
  PeakRow row{threads,
              m.ops_per_second.max,
              f32 > 0 ? m.ops_per_second.max * info.peak_bf16_flops / f32 : m.ops_per_second.max,
              f32 > 0 ? m.ops_per_second.max * info.peak_int8_ops / f32 : m.ops_per_second.max,
              m.method,
              derived,
              derived};
  if (isa != SimdIsa::avx512) return row;
  // Each dtype's fastest loop (AMX tiles where the CPU has them) is its roof.
  bool int8_measured = false;
  for (const PeakLoop &loop : peak_loops(cpu_identity())) {
    if (loop.isa != SimdIsa::avx512 || (loop.dtype != "bf16" && loop.dtype != "int8")) continue;
    const PeakMeasurement p = measure_peak(loop, threads, options);
    if (loop.dtype == "int8") {
      if (!int8_measured || p.ops_per_second.max > row.int8)
        row.int8 = p.ops_per_second.max, row.int8_method = p.method;
      int8_measured = true;
    } else if (p.ops_per_second.max >= row.fp32) {
      if (p.ops_per_second.max > row.bf16 || row.bf16_method == derived)
        row.bf16 = p.ops_per_second.max, row.bf16_method = p.method;
    } else if (row.bf16_method == derived) {
      // bf16 widens exactly to f32, so f32 FMAs reach bf16's results too: where they are
      // faster (Emerald Rapids issues vdpbf16ps zmm at half the FMA's rate, 32 FLOP a cycle
      // against 64), the FP32 loop is bf16's roof.
      row.bf16 = row.fp32;
      row.bf16_method =
          fmt::format("{}, above the vdpbf16ps loop's {:.1f} GFLOP/s", m.method, p.ops_per_second.max / 1e9);
    }
  }
  return row;
}

}  // namespace dlk::perf
