#include "backends/cuda/device_ceilings.hpp"

namespace dlk::cuda {

SmThroughput sm_throughput(int major, int minor) {
  // Dense tensor-core rates: A100 (sm_80) 312 TFLOP/s f16 on 108 SMs at 1.41 GHz =
  // 2048 per SM per clock; H100 (sm_90) 989 TFLOP/s on 132 SMs at 1.83 GHz = 4096.
  // TF32 is half of f16, int8 twice. CUDA cores: 64 FP32 lanes per SM on sm_70
  // and sm_80, 128 on sm_86 and later.
  SmThroughput t;
  if (major == 9 && minor == 0) {
    t.f32 = 256;
    t.f16 = t.bf16 = 4096;
  } else if (major == 8 && minor == 0) {
    t.f32 = 128;
    t.f16 = t.bf16 = 2048;
  } else if (major == 7 && minor == 0) {
    t.f32 = 128;
    t.f16 = 1024;  // Volta: no bf16, tf32 or int8 tensor cores
    return t;
  } else if (major >= 8) {
    t.f32 = 256;  // tensor-core rates of consumer and newer parts vary by SKU: measured only
    return t;
  } else {
    return t;
  }
  t.tf32 = t.f16 / 2;
  t.int8 = t.f16 * 2;
  return t;
}

core::DeviceInfo device_info(const DeviceProperties &p, bool allow_tf32) {
  core::DeviceInfo d;
  d.device = p.name;
  d.isa = "sm_" + std::to_string(p.major) + std::to_string(p.minor);
  const SmThroughput t = sm_throughput(p.major, p.minor);
  const double per_clock = p.sm_count * p.clock_hz;
  d.peak_f32_flops = (allow_tf32 && t.tf32 > 0 ? t.tf32 : t.f32) * per_clock;
  d.peak_f16_flops = t.f16 * per_clock;
  d.peak_bf16_flops = t.bf16 * per_clock;
  d.peak_int8_ops = t.int8 * per_clock;
  d.memory_bandwidth = 2.0 * p.memory_clock_hz * p.memory_bus_bits / 8.0;
  return d;
}

}  // namespace dlk::cuda
