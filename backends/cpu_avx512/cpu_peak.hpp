// The theoretical peak of the CPU the context runs on, for
// dlk_context_get_info: FP32 FLOP per cycle per core from a table by CPUID
// vendor, family and model (0 where the table does not know the CPU), limited
// to what the context's ISA tier can issue.
//
//   CPU (vendor, family, models)                       FP32 FLOP/cycle/core
//   AMD 0x17, models < 0x30 (Zen, Zen+: 2 x 128-bit FMA)        16
//   AMD 0x17, models >= 0x30 (Zen 2: 2 x 256-bit FMA)           32
//   AMD 0x19 (Zen 3; Zen 4: AVX-512 on 2 x 256-bit FMA)         32
//   AMD 0x1A, models 0x20-0x2F, 0x60-0x7F (Zen 5 mobile,
//     256-bit data path)                                        32
//   AMD 0x1A, other models (Zen 5: 2 x 512-bit FMA)             64
//   anything else                                                0 (unknown)
//
// The tier caps it at 4 FLOP per cycle per f32 lane of its vectors (two FMA
// pipes): avx512 64, avx2 32, scalar (the SSE2 baseline, mul and add) 16.
#pragma once

#include "core/backend.hpp"

namespace dlk::cpu {

// FP32 FLOP per cycle per core; 0 when unknown.
double fp32_flops_per_cycle(const core::CpuFeatures &cpu, core::CpuIsa isa);

// Whether the CPU's vdpbf16ps (AVX512_BF16) does more multiply-adds a second
// than its f32 FMAs, so that bf16 is faster kept as bf16 than widened to f32.
// Measured by dlk-perf's peak loops, one core: AMD Zen 4 452 bf16 against 227
// f32 GFLOP/s (2 threads); Intel Xeon model 207 (Emerald Rapids) 86 against
// 173-180 (one 512-bit vdpbf16ps every other cycle, against two FMAs every
// cycle); an Intel Xeon with AMX that its guest reports as family 6 model 167
// 237 against 474 (2 threads). Sapphire and Granite Rapids and Cooper Lake are
// taken to be Emerald Rapids' kind (the same port layout), so AMD parts only;
// without AVX512_BF16 there is no vdpbf16ps at all. The convolution kernels and
// the GEMM (gemm_kernels.cpp) widen bf16 to f32 where this is false.
bool bf16_dot_outpaces_fma(const core::CpuFeatures &cpu);

}  // namespace dlk::cpu
