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

// Read loops: sum `bytes` bytes at `data` as 64-bit integers, with the widest
// loads of the ISA and several accumulators. bytes is a multiple of kReadGranule.
constexpr size_t kReadGranule = 256;
std::uint64_t read_loop_avx512(const void *data, size_t bytes);
std::uint64_t read_loop_avx2(const void *data, size_t bytes);
std::uint64_t read_loop_generic(const void *data, size_t bytes);

}  // namespace dlk::perf::kernels
