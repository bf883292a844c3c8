// backends/cuda/device_ceilings.cpp: the ceilings dlk_context_get_info reports
// from a GPU's properties, checked against NVIDIA's published H100 and A100 figures.
#include <catch2/catch.hpp>

#include "backends/cuda/device_ceilings.hpp"

using namespace dlk;

namespace {

// H100 SXM5 as cudaGetDeviceProperties describes it: 132 SMs, 1980 MHz maximum
// SM clock, HBM3 at 2619 MHz on a 5120-bit bus.
cuda::DeviceProperties h100() {
  cuda::DeviceProperties p;
  p.name = "NVIDIA H100 80GB HBM3";
  p.major = 9, p.minor = 0;
  p.sm_count = 132;
  p.clock_hz = 1980e6;
  p.memory_clock_hz = 2619e6;
  p.memory_bus_bits = 5120;
  return p;
}

}  // namespace

TEST_CASE("device ceilings: H100 SXM5 peaks per dtype and HBM bandwidth", "[cuda][ceilings]") {
  const core::DeviceInfo d = cuda::device_info(h100(), false);
  CHECK(d.device == "NVIDIA H100 80GB HBM3");
  CHECK(d.isa == "sm_90");
  // NVIDIA's dense figures at the boost clock: 67 TFLOP/s f32, 989 f16/bf16
  // (at 1830 MHz; 1070 at 1980), 1979 int8 TOPS (at 1830), 3.35 TB/s.
  CHECK(d.peak_f32_flops == Approx(132 * 1980e6 * 256));
  CHECK(d.peak_f32_flops == Approx(66.9e12).epsilon(0.01));
  CHECK(d.peak_f16_flops == Approx(989.4e12 * 1980 / 1830).epsilon(0.01));
  CHECK(d.peak_bf16_flops == d.peak_f16_flops);
  CHECK(d.peak_int8_ops == Approx(2 * d.peak_f16_flops));
  CHECK(d.memory_bandwidth == Approx(3.35e12).epsilon(0.01));
}

TEST_CASE("device ceilings: with TF32 allowed, f32's peak is the TF32 tensor cores'", "[cuda][ceilings]") {
  const core::DeviceInfo d = cuda::device_info(h100(), true);
  CHECK(d.peak_f32_flops == Approx(d.peak_f16_flops / 2));
}

TEST_CASE("device ceilings: A100 and an unknown architecture", "[cuda][ceilings]") {
  const cuda::SmThroughput a100 = cuda::sm_throughput(8, 0);
  CHECK(a100.f16 * 108 * 1410e6 == Approx(312e12).epsilon(0.01));
  CHECK(a100.f32 * 108 * 1410e6 == Approx(19.5e12).epsilon(0.01));
  CHECK(a100.int8 == 2 * a100.f16);
  // Tensor-core rates that vary by SKU are left to dlk-perf (0 = cannot tell).
  const cuda::SmThroughput ada = cuda::sm_throughput(8, 9);
  CHECK(ada.f32 == 256);
  CHECK(ada.f16 == 0);
  const cuda::SmThroughput old = cuda::sm_throughput(6, 1);
  CHECK((old.f32 == 0 && old.f16 == 0 && old.int8 == 0));
}
