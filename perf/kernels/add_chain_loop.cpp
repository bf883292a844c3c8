#include "perf/kernels/perf_kernels.hpp"

namespace dlk::perf::kernels {

std::uint64_t add_chain_loop(std::int64_t iterations) {
  std::uint64_t x = static_cast<std::uint64_t>(iterations);
  const std::uint64_t one = 1;
  for (std::int64_t i = 0; i < iterations; ++i) {
    // 16 dependent one-cycle adds: the loop's own counter and branch run beside them.
    // The addend is a register: Intel's cores since Golden Cove fold an add of an
    // immediate at rename, and a chain of those ran at 5 adds a cycle (a 21 GHz "clock").
    __asm__ volatile(
        "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
        "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
        "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
        "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0"
        : "+r"(x)
        : "r"(one));
  }
  return x;
}

}  // namespace dlk::perf::kernels
