// The AVX-512 transpose (kernels/transpose_kernels.hpp) called directly: the
// convolutions reach its 8-, 16- and 32-bit paths only on some layouts and
// CPUs (NCHW bf16 and int8 images on AMX). Rows and columns one below, at and
// above each block (16 32-bit, 32 16-bit, 64 8-bit rows; 16 columns), strides
// with a gap; the bits compared exactly, nothing written outside the result.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "backends/cpu_avx512/kernels/transpose_kernels.hpp"

namespace dlk::cpu_test {
namespace {

template <class E>
void check_transpose(std::mt19937 &rng) {
  constexpr E kUntouched = static_cast<E>(0x5a5a5a5a);
  for (const int64_t rows : {1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100})
    for (const int64_t cols : {1, 7, 15, 16, 17, 33}) {
      INFO(sizeof(E) << "-byte elements, rows " << rows << " cols " << cols);
      const int64_t ld_in = cols + 3, ld_out = rows + 5;
      std::vector<E> in(static_cast<size_t>(rows * ld_in));
      for (E &v : in) v = static_cast<E>(rng());
      std::vector<E> out(static_cast<size_t>(cols * ld_out + 8), kUntouched);
      cpu::kernels::transpose_avx512(in.data(), rows, cols, ld_in, sizeof(E), out.data(), ld_out);
      int64_t wrong = 0, stray = 0;
      for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < ld_out; ++i) {
          const E got = out[static_cast<size_t>(j * ld_out + i)];
          if (i < rows)
            wrong += got != in[static_cast<size_t>(i * ld_in + j)];
          else
            stray += got != kUntouched;
        }
      for (size_t e = static_cast<size_t>(cols * ld_out); e < out.size(); ++e)
        stray += out[e] != kUntouched;
      CHECK(wrong == 0);
      CHECK(stray == 0);
    }
}

}  // namespace

TEST_CASE("transpose: 8-, 16- and 32-bit elements at every block edge, nothing written past",
          "[cpu][conv2d]") {
  if (!__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vl")) {
    WARN("skipped: the CPU has no AVX-512 BW and VL, which the kernel needs");
    return;
  }
  std::mt19937 rng(61);
  check_transpose<uint8_t>(rng);
  check_transpose<uint16_t>(rng);
  check_transpose<uint32_t>(rng);
}

}  // namespace dlk::cpu_test
