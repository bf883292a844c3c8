#include <immintrin.h>

#include "perf/kernels/perf_kernels.hpp"

namespace dlk::perf::kernels {

std::uint64_t read_loop_avx512(const void *data, size_t bytes) {
  const char *p = static_cast<const char *>(data);
  __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
  for (size_t off = 0; off < bytes; off += 256) {
    s0 = _mm512_add_epi64(s0, _mm512_loadu_si512(p + off));
    s1 = _mm512_add_epi64(s1, _mm512_loadu_si512(p + off + 64));
    s2 = _mm512_add_epi64(s2, _mm512_loadu_si512(p + off + 128));
    s3 = _mm512_add_epi64(s3, _mm512_loadu_si512(p + off + 192));
  }
  const __m512i sum = _mm512_add_epi64(_mm512_add_epi64(s0, s1), _mm512_add_epi64(s2, s3));
  // Stored and summed by hand: GCC 12 warns (falsely) inside the _mm512_reduce_* helpers.
  alignas(64) std::uint64_t lanes[8];
  _mm512_store_si512(lanes, sum);
  std::uint64_t total = 0;
  for (std::uint64_t v : lanes) total += v;
  return total;
}

}  // namespace dlk::perf::kernels
