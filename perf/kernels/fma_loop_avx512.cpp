#include <immintrin.h>

#include "perf/kernels/perf_kernels.hpp"

namespace dlk::perf::kernels {

float fma_loop_avx512(std::int64_t iterations) {
  // acc = acc * a + b has its fixed point at b / (1 - a) = 1: values stay normal.
  const __m512 a = _mm512_set1_ps(0.999999f);
  const __m512 b = _mm512_set1_ps(1e-6f);
  volatile float start = 1.0f;  // unknown to the compiler, which could otherwise fold the loop
  __m512 acc[16];
  for (auto &x : acc) x = _mm512_set1_ps(start);
  for (std::int64_t i = 0; i < iterations; ++i)
    for (auto &x : acc) x = _mm512_fmadd_ps(x, a, b);
  __m512 sum = acc[0];
  for (int j = 1; j < 16; ++j) sum = _mm512_add_ps(sum, acc[j]);
  // Stored and summed by hand: GCC 12 warns (falsely) inside _mm512_reduce_add_ps.
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

}  // namespace dlk::perf::kernels
