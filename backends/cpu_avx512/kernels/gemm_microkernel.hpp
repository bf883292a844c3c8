// The GEMM micro-kernels' fixed signatures (one per accumulator type, as BLIS has
// one per dtype): a micro-kernel adds the product of a packed A micro-panel and a
// packed B micro-panel to an MR x NR tile of an accumulator,
//
//   c[i * ldc + j] += sum_p a[p * MR + i] * b[p * NR + j],   0 <= p < kc,
//
// where both panels are stored p-major and padded with zeros to full MR rows and
// NR columns. Blocking, packing, threading and the conversion to C's type live
// once above them (gemm_reference.cpp), so a faster kernel only has to honour this.
#pragma once

#include <cstdint>

namespace dlk::cpu::kernels {

// f32 accumulation, for f32, f16 and bf16 operands (packed as f32).
using GemmF32Microkernel = void (*)(int64_t kc, const float *a, const float *b, float *c,
                                    int64_t ldc);
// s32 accumulation wrapping modulo 2^32, for int8 operands packed as int16
// (A minus its zero point needs 9 bits).
using GemmS32Microkernel = void (*)(int64_t kc, const int16_t *a, const int16_t *b, int32_t *c,
                                    int64_t ldc);

// Portable C++ kernels: plain loops that the compiler vectorises for whatever
// ISA the library is built for. 4 x 8 keeps the accumulators in the sixteen
// registers of the x86-64 baseline (SSE2).
constexpr int kGenericMR = 4;
constexpr int kGenericNR = 8;
void gemm_f32_generic_4x8(int64_t kc, const float *a, const float *b, float *c, int64_t ldc);
void gemm_s32_generic_4x8(int64_t kc, const int16_t *a, const int16_t *b, int32_t *c,
                          int64_t ldc);

}  // namespace dlk::cpu::kernels
