#include <immintrin.h>

#include "perf/kernels/perf_kernels.hpp"

namespace dlk::perf::kernels {

float fma_loop_avx2(std::int64_t iterations) {
  // acc = acc * a + b has its fixed point at b / (1 - a) = 1: values stay normal.
  const __m256 a = _mm256_set1_ps(0.999999f);
  const __m256 b = _mm256_set1_ps(1e-6f);
  volatile float start = 1.0f;  // unknown to the compiler, which could otherwise fold the loop
  __m256 acc[12];
  for (auto &x : acc) x = _mm256_set1_ps(start);
  for (std::int64_t i = 0; i < iterations; ++i)
    for (auto &x : acc) x = _mm256_fmadd_ps(x, a, b);
  __m256 sum = acc[0];
  for (int j = 1; j < 12; ++j) sum = _mm256_add_ps(sum, acc[j]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

}  // namespace dlk::perf::kernels
