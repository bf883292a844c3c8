// The arithmetic peaks per dtype that `dlk-perf gemm` and `dlk-perf conv` report
// their % of peak against, measured in the same run (perf/ceilings/fma_peak.hpp).
#pragma once

#include <string>

#include "dlk/dlk.h"

namespace dlk::perf {

struct PeakRow {
  int threads;
  double fp32, bf16, int8;  // ops/s
  std::string method, bf16_method, int8_method;  // the loop measured, or how derived
};

// The peaks at `threads`: the FP32 loop of the context's tier, and the
// vdpbf16ps and vpdpbusd loops where the context runs avx512 and the CPU has
// them (bf16: the faster of its loop and the FP32 loop, which computes bf16's
// products exactly). Without them dlk's bf16 runs the f32 kernel and int8 the generic one,
// so their roof is the FP32 peak scaled by the context's theoretical ratios.
PeakRow measure_dtype_peaks(const dlk_context_info &info, int threads);

// The peaks the context reports (dlk_context_get_info): a device backend's, which
// the CPU's loops cannot measure (dlk-perf roofline --backend cuda measures them
// with GEMMs).
PeakRow theoretical_dtype_peaks(const dlk_context_info &info);

}  // namespace dlk::perf
