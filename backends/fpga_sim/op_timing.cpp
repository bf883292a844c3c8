#include "backends/fpga_sim/op_timing.hpp"

#include "backends/fpga_sim/fold_timing.hpp"

namespace dlk::fpga_sim {
namespace {

double bytes_of(dlk_dtype t) { return static_cast<double>(dlk_dtype_size(t)); }
double d(int64_t v) { return static_cast<double>(v); }

}  // namespace

SimCost time_gemm_op(const AcceleratorConfig &config, const core::GemmArgs &g) {
  ArrayGemm a;
  a.m = g.m, a.n = g.n, a.k = g.k;
  a.a_bytes = static_cast<int64_t>(dlk_dtype_size(g.a.dtype));
  a.b_bytes = static_cast<int64_t>(dlk_dtype_size(g.b.dtype));
  a.a_footprint = d(g.m * g.k) * bytes_of(g.a.dtype);
  a.b_footprint = d(g.k * g.n) * bytes_of(g.b.dtype);
  a.c_written = d(g.m * g.n) * bytes_of(g.c_type);
  a.c_read = g.beta != 0.0f ? a.c_written : 0.0;
  // Batch entries run one after another; each fetches its own operands.
  return time_gemm(config, a).scaled(d(g.batch));
}

SimCost time_conv_forward(const AcceleratorConfig &config, const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &desc = a.desc;
  const int64_t taps = a.c_per_group * desc.kh * desc.kw;
  ArrayGemm g;
  g.m = desc.n * a.oh * a.ow, g.n = a.k_per_group, g.k = taps;
  g.a_bytes = static_cast<int64_t>(dlk_dtype_size(desc.src_type));
  g.b_bytes = static_cast<int64_t>(dlk_dtype_size(desc.weights_type));
  g.a_footprint = d(desc.n * a.c_per_group * desc.h * desc.w) * bytes_of(desc.src_type);
  g.b_footprint = d(a.k_per_group * taps) * bytes_of(desc.weights_type);
  g.c_written = d(g.m * g.n) * bytes_of(desc.dst_type);
  return time_gemm(config, g).scaled(d(desc.groups));
}

SimCost time_conv_backward_data(const AcceleratorConfig &config, const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &desc = a.desc;
  const int64_t taps = a.c_per_group * desc.kh * desc.kw;
  const double esize = bytes_of(desc.src_type);
  ArrayGemm g;
  g.m = desc.n * a.oh * a.ow, g.n = taps, g.k = a.k_per_group;
  g.a_bytes = g.b_bytes = static_cast<int64_t>(dlk_dtype_size(desc.src_type));
  g.a_footprint = d(g.m * a.k_per_group) * esize;
  g.b_footprint = d(a.k_per_group * taps) * esize;
  g.c_written = 0;  // the column matrix stays on chip for col2im
  SimCost cost = time_gemm(config, g);
  // col2im: one add per column element, the image written once.
  cost += time_vector(config, d(g.m * g.n), 0.0, d(desc.n * a.c_per_group * desc.h * desc.w) * esize);
  return cost.scaled(d(desc.groups));
}

SimCost time_conv_backward_weights(const AcceleratorConfig &config, const core::Conv2dArgs &a) {
  const dlk_conv2d_desc &desc = a.desc;
  const int64_t taps = a.c_per_group * desc.kh * desc.kw;
  const double esize = bytes_of(desc.src_type);
  ArrayGemm g;
  g.m = a.k_per_group, g.n = taps, g.k = desc.n * a.oh * a.ow;
  g.a_bytes = g.b_bytes = static_cast<int64_t>(dlk_dtype_size(desc.src_type));
  g.a_footprint = d(g.m * g.k) * esize;
  g.b_footprint = d(desc.n * a.c_per_group * desc.h * desc.w) * esize;
  g.c_written = d(g.m * g.n) * esize;
  SimCost cost = time_gemm(config, g);
  // The bias gradient: one add per diff_dst element on the vector unit, which
  // reads diff_dst from the buffer the GEMM already filled.
  if (a.diff_bias) cost += time_vector(config, d(g.m * g.k), 0.0, d(g.m) * 4.0);
  return cost.scaled(d(desc.groups));
}

SimCost time_pool_forward(const AcceleratorConfig &config, const core::Pool2dArgs &a) {
  const dlk_pool2d_desc &p = a.desc;
  const double esize = bytes_of(p.dtype);
  const double src = d(p.n * p.c * p.h * p.w), dst = d(p.n * p.c * a.oh * a.ow);
  return time_vector(config, dst * d(p.kh * p.kw), src * esize,
                     dst * esize + (a.argmax ? dst * 4.0 : 0.0));
}

SimCost time_pool_backward(const AcceleratorConfig &config, const core::Pool2dArgs &a) {
  const dlk_pool2d_desc &p = a.desc;
  const double esize = bytes_of(p.dtype);
  const double src = d(p.n * p.c * p.h * p.w), dst = d(p.n * p.c * a.oh * a.ow);
  // Max: one scatter per output (plus clearing diff_src); average: every tap.
  const double ops = src + (p.kind == DLK_POOL_MAX ? dst : dst * d(p.kh * p.kw));
  return time_vector(config, ops, dst * esize + (a.argmax_in ? dst * 4.0 : 0.0), src * esize);
}

}  // namespace dlk::fpga_sim
