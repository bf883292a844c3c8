#include "perf/kernels/perf_kernels.hpp"

namespace dlk::perf::kernels {

std::uint64_t add_chain_loop(std::int64_t iterations) {
  std::uint64_t x = static_cast<std::uint64_t>(iterations);
  for (std::int64_t i = 0; i < iterations; ++i) {
    // 16 dependent one-cycle adds: the loop's own counter and branch run beside them.
    __asm__ volatile(
        "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
        "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
        "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
        "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
        : "+r"(x));
  }
  return x;
}

}  // namespace dlk::perf::kernels
