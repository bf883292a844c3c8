#include "backends/fpga_sim/fpga_sim_backend.hpp"

#include <cstdio>

#include "backends/fpga_sim/accumulator_overflow.hpp"
#include "backends/fpga_sim/array_float_conv.hpp"
#include "backends/fpga_sim/array_float_gemm.hpp"
#include "backends/fpga_sim/op_timing.hpp"

namespace dlk::fpga_sim {
namespace {

bool is_integer(dlk_dtype t) { return t == DLK_DTYPE_U8 || t == DLK_DTYPE_S8; }

}  // namespace

FpgaSimBackend::FpgaSimBackend(const AcceleratorConfig &accelerator,
                               const core::BackendConfig &config)
    : accelerator_(accelerator), host_(core::make_host_compute_backend(config)) {}

core::DeviceInfo FpgaSimBackend::info() const {
  const AcceleratorConfig &c = accelerator_;
  char device[128];
  std::snprintf(device, sizeof(device), "%s: %lldx%lld %s array at %.0f MHz, DRAM %.1f GB/s",
                c.name.c_str(), static_cast<long long>(c.rows), static_cast<long long>(c.cols),
                dataflow_name(c.dataflow), c.clock_hz * 1e-6, c.dram_bytes_per_second * 1e-9);
  char isa[32];
  std::snprintf(isa, sizeof(isa), "systolic_%lldx%lld_%s", static_cast<long long>(c.rows),
                static_cast<long long>(c.cols), dataflow_name(c.dataflow));
  core::DeviceInfo d;
  d.device = device;
  d.isa = isa;
  // One multiply-accumulate (two operations) per PE per cycle.
  const double peak = 2.0 * static_cast<double>(c.rows * c.cols) * c.clock_hz;
  d.peak_f32_flops = c.fp32 ? peak : 0;
  d.peak_f16_flops = c.fp16 ? peak : 0;
  d.peak_bf16_flops = c.bf16 ? peak : 0;
  d.peak_int8_ops = c.int8 ? peak : 0;
  d.memory_bandwidth = c.dram_bytes_per_second;
  return d;
}

bool FpgaSimBackend::supports(dlk_op, dlk_dtype a, dlk_dtype, dlk_dtype) const {
  // Core asks only about signatures dlk.h defines, so the first operand's type
  // names the multiplier (or, for pooling, the vector unit's arithmetic) needed.
  switch (a) {
    case DLK_DTYPE_U8:
    case DLK_DTYPE_S8: return accelerator_.int8;
    case DLK_DTYPE_BF16: return accelerator_.bf16;
    case DLK_DTYPE_F16: return accelerator_.fp16;
    case DLK_DTYPE_F32: return accelerator_.fp32;
    default: return false;
  }
}

core::OpResult FpgaSimBackend::result(const char *what, const SimCost &cost) const {
  core::OpResult r;
  r.implementation = std::string("fpga_sim:") + dataflow_name(accelerator_.dataflow) + "_" +
                     std::to_string(accelerator_.rows) + "x" + std::to_string(accelerator_.cols) +
                     ":" + what;
  r.sim = to_record(cost, accelerator_);
  r.sim_cycles = r.sim.cycles;
  return r;
}

core::OpResult FpgaSimBackend::gemm(const core::GemmArgs &args) {
  SimCost cost = time_gemm_op(accelerator_, args);
  if (args.is_integer()) {
    // Wrapping s32 sums do not depend on the order of additions: the host's
    // integer GEMM gives exactly the array's values.
    host_->gemm(args);
    cost.overflows = count_accumulator_overflows(args);
    return result("gemm_int8", cost);
  }
  array_float_gemm(accelerator_, args);
  return result("gemm_float", cost);
}

core::OpResult FpgaSimBackend::conv2d_forward(const core::Conv2dArgs &args) {
  SimCost cost = time_conv_forward(accelerator_, args);
  if (is_integer(args.desc.src_type)) {
    host_->conv2d_forward(args);
    cost.overflows = count_accumulator_overflows(args);
    return result("im2col_gemm_int8", cost);
  }
  array_float_conv_forward(accelerator_, args);
  return result("im2col_gemm_float", cost);
}

core::OpResult FpgaSimBackend::conv2d_backward_data(const core::Conv2dArgs &args) {
  array_float_conv_backward_data(accelerator_, args);
  return result("gemm_col2im_float", time_conv_backward_data(accelerator_, args));
}

core::OpResult FpgaSimBackend::conv2d_backward_weights(const core::Conv2dArgs &args) {
  array_float_conv_backward_weights(accelerator_, args);
  return result("im2col_gemm_float", time_conv_backward_weights(accelerator_, args));
}

core::OpResult FpgaSimBackend::pool2d_forward(const core::Pool2dArgs &args) {
  // Max and average are exact or rounded once per window in window order, as
  // the host computes them.
  host_->pool2d_forward(args);
  return result("pool_vector", time_pool_forward(accelerator_, args));
}

core::OpResult FpgaSimBackend::pool2d_backward(const core::Pool2dArgs &args) {
  host_->pool2d_backward(args);
  return result("pool_backward_vector", time_pool_backward(accelerator_, args));
}

}  // namespace dlk::fpga_sim

namespace dlk::core {
std::unique_ptr<Backend> make_fpga_sim_backend(const BackendConfig &config) {
  const fpga_sim::AcceleratorConfig accelerator = config.fpga_sim_config.empty()
                                                      ? fpga_sim::builtin_accelerator()
                                                      : fpga_sim::load_accelerator(config.fpga_sim_config);
  return std::make_unique<fpga_sim::FpgaSimBackend>(accelerator, config);
}
}  // namespace dlk::core
