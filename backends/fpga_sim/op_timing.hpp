// Each dlk op as the accelerator runs it, in timing terms: GEMMs lowered to
// array GEMMs (one per batch entry or per group), pooling and col2im on the
// vector unit.
#pragma once

#include "backends/fpga_sim/accelerator_config.hpp"
#include "backends/fpga_sim/sim_cost.hpp"
#include "core/op_args.hpp"

namespace dlk::fpga_sim {

SimCost time_gemm_op(const AcceleratorConfig &config, const core::GemmArgs &args);
// Forward: per group, (n*oh*ow) x (k/groups) outputs over (c/groups*kh*kw) taps.
SimCost time_conv_forward(const AcceleratorConfig &config, const core::Conv2dArgs &args);
// Backward data: per group, (n*oh*ow) x taps over k/groups, then col2im adds.
SimCost time_conv_backward_data(const AcceleratorConfig &config, const core::Conv2dArgs &args);
// Backward weights: per group, (k/groups) x taps over n*oh*ow, plus the bias sums.
SimCost time_conv_backward_weights(const AcceleratorConfig &config, const core::Conv2dArgs &args);
SimCost time_pool_forward(const AcceleratorConfig &config, const core::Pool2dArgs &args);
SimCost time_pool_backward(const AcceleratorConfig &config, const core::Pool2dArgs &args);

}  // namespace dlk::fpga_sim
