#include <immintrin.h>

#include "perf/kernels/perf_kernels.hpp"

namespace dlk::perf::kernels {

float dpbf16_loop_avx512(std::int64_t iterations) {
  // Each step adds 2 * 2^-20 per lane: after 2^24 steps the sums stop growing
  // (the addend falls below half an ulp) but stay normal, so the speed never changes.
  volatile float start = 0x1p-10f;  // unknown to the compiler, which could otherwise fold the loop
  const __m512 x = _mm512_set1_ps(start);
  const __m512bh a = _mm512_cvtne2ps_pbh(x, x);
  __m512 acc[16];
  for (auto &v : acc) v = _mm512_setzero_ps();
  for (std::int64_t i = 0; i < iterations; ++i)
    for (auto &v : acc) v = _mm512_dpbf16_ps(v, a, a);
  __m512 sum = acc[0];
  for (int j = 1; j < 16; ++j) sum = _mm512_add_ps(sum, acc[j]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

}  // namespace dlk::perf::kernels
