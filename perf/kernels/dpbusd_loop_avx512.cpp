#include <immintrin.h>

#include "perf/kernels/perf_kernels.hpp"

namespace dlk::perf::kernels {

std::int32_t dpbusd_loop_avx512(std::int64_t iterations) {
  // Built with -mavx512vnni and without -mavxvnni: zmm operands exist only in
  // the EVEX encoding, so this can never become the VEX form Zen 4 lacks.
  volatile char start = 1;  // unknown to the compiler, which could otherwise fold the loop
  const __m512i a = _mm512_set1_epi8(start);
  __m512i acc[16];
  for (auto &v : acc) v = _mm512_setzero_si512();
  for (std::int64_t i = 0; i < iterations; ++i)
    for (auto &v : acc) v = _mm512_dpbusd_epi32(v, a, a);
  __m512i sum = acc[0];
  for (int j = 1; j < 16; ++j) sum = _mm512_add_epi32(sum, acc[j]);
  alignas(64) std::int32_t lanes[16];
  _mm512_store_si512(lanes, sum);
  // Wraps modulo 2^32 as the hardware's accumulators do.
  std::uint32_t total = 0;
  for (std::int32_t v : lanes) total += static_cast<std::uint32_t>(v);
  return static_cast<std::int32_t>(total);
}

}  // namespace dlk::perf::kernels
