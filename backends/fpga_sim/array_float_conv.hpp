// Floating-point convolutions lowered by im2col to array GEMMs (see
// array_float_gemm.hpp for the order of additions): forward with bias and ReLU,
// backward data (GEMM, then col2im on the vector unit) and backward weights
// (GEMM over every pixel of every image, the bias gradient on the vector unit).
// Each result is rounded once to its storage type.
#pragma once

#include "backends/fpga_sim/accelerator_config.hpp"
#include "core/op_args.hpp"

namespace dlk::fpga_sim {

void array_float_conv_forward(const AcceleratorConfig &config, const core::Conv2dArgs &args);
void array_float_conv_backward_data(const AcceleratorConfig &config, const core::Conv2dArgs &args);
void array_float_conv_backward_weights(const AcceleratorConfig &config, const core::Conv2dArgs &args);

}  // namespace dlk::fpga_sim
