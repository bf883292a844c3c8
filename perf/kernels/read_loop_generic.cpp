#include <cstring>

#include "perf/kernels/perf_kernels.hpp"

namespace dlk::perf::kernels {

std::uint64_t read_loop_generic(const void *data, size_t bytes) {
  // Portable C++; the compiler vectorizes it with the baseline ISA (SSE2 on x86-64).
  const char *p = static_cast<const char *>(data);
  std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (size_t off = 0; off < bytes; off += 32) {
    std::uint64_t w[4];
    std::memcpy(w, p + off, sizeof w);
    s0 += w[0];
    s1 += w[1];
    s2 += w[2];
    s3 += w[3];
  }
  return s0 + s1 + s2 + s3;
}

}  // namespace dlk::perf::kernels
