#include "perf/kernels/perf_kernels.hpp"

namespace dlk::perf::kernels {

float mul_add_loop_scalar(std::int64_t iterations) {
  // acc = acc * a + b has its fixed point at b / (1 - a) = 1: values stay normal.
  // Built without vectorizers and with -ffp-contract=off: one mulss and one addss each.
  const float a = 0.999999f, b = 1e-6f;
  volatile float start = 1.0f;  // unknown to the compiler, which would otherwise fold the loop
  float acc[12];
  for (auto &x : acc) x = start;
  for (std::int64_t i = 0; i < iterations; ++i)
    for (auto &x : acc) x = x * a + b;
  float total = 0;
  for (float x : acc) total += x;
  return total;
}

}  // namespace dlk::perf::kernels
