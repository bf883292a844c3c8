// Measurement kernels, one file per ISA (as BLIS keeps one micro-kernel per file),
// each compiled with that ISA's flags only: call one only where the CPU has its ISA.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dlk::perf::kernels {

// Register-blocked FP32 loops: `iterations` steps of acc[j] = acc[j] * a + b on
// independent accumulators, enough of them to cover the FMA latency times the
// number of FMA pipes (4 cycles x 2 pipes on Zen 4/5 and Skylake-X). The result
// depends on every accumulator, so the loop cannot be dropped.
// AVX-512: 16 zmm accumulators, one vfmadd231ps each per iteration.
constexpr double kFmaAvx512FlopsPerIteration = 16 * 16 * 2;
float fma_loop_avx512(std::int64_t iterations);
// AVX2 + FMA: 12 ymm accumulators.
constexpr double kFmaAvx2FlopsPerIteration = 12 * 8 * 2;
float fma_loop_avx2(std::int64_t iterations);
// Scalar: 12 accumulators, a separate multiply and add each (mulss + addss), as
// code built for baseline x86-64 without FMA runs; compiled without vectorization.
constexpr double kScalarFlopsPerIteration = 12 * 2;
float mul_add_loop_scalar(std::int64_t iterations);
// AVX512_BF16: 16 zmm accumulators, one vdpbf16ps each per iteration (16 f32
// lanes, each adding two bf16 products: 4 FLOP per lane).
constexpr double kDpbf16Avx512FlopsPerIteration = 16 * 16 * 4;
float dpbf16_loop_avx512(std::int64_t iterations);
// AVX512_VNNI: 16 zmm accumulators, one EVEX vpdpbusd each per iteration (16 s32
// lanes, each adding four u8 x s8 products: 8 OP per lane).
constexpr double kDpbusdAvx512OpsPerIteration = 16 * 16 * 8;
std::int32_t dpbusd_loop_avx512(std::int64_t iterations);

// AMX: tdpbf16ps into four 16 x 16 f32 tiles from four 16 x 32 bf16 tiles
// (16 x 16 x 32 products + adds each), nothing loaded in the loop.
constexpr double kTdpbf16AmxFlopsPerIteration = 4 * 16 * 16 * 32 * 2;
float tdpbf16_loop_amx(std::int64_t iterations);
// AMX: tdpbusd likewise (16 x 16 x 64 u8 x s8 products + adds each).
constexpr double kTdpbusdAmxOpsPerIteration = 4 * 16 * 16 * 64 * 2;
std::int32_t tdpbusd_loop_amx(std::int64_t iterations);

// 16 dependent integer adds per iteration (one cycle each): the core clock is
// 16 * iterations / seconds.
constexpr double kAddChainCyclesPerIteration = 16;
std::uint64_t add_chain_loop(std::int64_t iterations);

// Read loops: sum `bytes` bytes at `data` as 64-bit integers, with the widest
// loads of the ISA and several accumulators. bytes is a multiple of kReadGranule.
constexpr size_t kReadGranule = 256;
std::uint64_t read_loop_avx512(const void *data, size_t bytes);
std::uint64_t read_loop_avx2(const void *data, size_t bytes);
std::uint64_t read_loop_generic(const void *data, size_t bytes);

}  // namespace dlk::perf::kernels
