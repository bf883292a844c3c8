#include <immintrin.h>

#include "perf/kernels/perf_kernels.hpp"

namespace dlk::perf::kernels {

std::int32_t dpbusd_loop_avx512(std::int64_t iterations) {
  // Built with -mavx512vnni and without -mavxvnni: zmm operands exist only in
  // the EVEX encoding, so this can never become the VEX form Zen 4 lacks.
  volatile char start = 1;  // unknown to the compiler, which could otherwise fold the loop
  const __m512i a = _mm512_set1_epi8(start);
  // Sixteen named sums, each vpdpbusd in place: through _mm512_dpbusd_epi32
  // (and with the sums in an array) GCC 12 copies or stores every sum at each
  // step, 31 more instructions beside the 16 the loop is there to time.
  __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0,
          s7 = s0, s8 = s0, s9 = s0, s10 = s0, s11 = s0, s12 = s0, s13 = s0, s14 = s0, s15 = s0;
  const auto dot = [&a](__m512i &sum) {
    asm("vpdpbusd %[a], %[a], %[sum]" : [sum] "+v"(sum) : [a] "v"(a));
  };
  for (std::int64_t i = 0; i < iterations; ++i) {
    dot(s0), dot(s1), dot(s2), dot(s3), dot(s4), dot(s5), dot(s6), dot(s7);
    dot(s8), dot(s9), dot(s10), dot(s11), dot(s12), dot(s13), dot(s14), dot(s15);
  }
  const __m512i sum = _mm512_add_epi32(
      _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(s0, s1), _mm512_add_epi32(s2, s3)),
                       _mm512_add_epi32(_mm512_add_epi32(s4, s5), _mm512_add_epi32(s6, s7))),
      _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(s8, s9), _mm512_add_epi32(s10, s11)),
                       _mm512_add_epi32(_mm512_add_epi32(s12, s13), _mm512_add_epi32(s14, s15))));
  alignas(64) std::int32_t lanes[16];
  _mm512_store_si512(lanes, sum);
  // Wraps modulo 2^32 as the hardware's accumulators do.
  std::uint32_t total = 0;
  for (std::int32_t v : lanes) total += static_cast<std::uint32_t>(v);
  return static_cast<std::int32_t>(total);
}

}  // namespace dlk::perf::kernels
