#include <immintrin.h>

#include "perf/kernels/perf_kernels.hpp"

namespace dlk::perf::kernels {

std::uint64_t read_loop_avx2(const void *data, size_t bytes) {
  const char *p = static_cast<const char *>(data);
  __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
  for (size_t off = 0; off < bytes; off += 128) {
    s0 = _mm256_add_epi64(s0, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + off)));
    s1 = _mm256_add_epi64(s1, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + off + 32)));
    s2 = _mm256_add_epi64(s2, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + off + 64)));
    s3 = _mm256_add_epi64(s3, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + off + 96)));
  }
  const __m256i sum = _mm256_add_epi64(_mm256_add_epi64(s0, s1), _mm256_add_epi64(s2, s3));
  alignas(32) std::uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i *>(lanes), sum);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

}  // namespace dlk::perf::kernels
