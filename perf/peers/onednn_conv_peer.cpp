#include "perf/peers/onednn_conv_peer.hpp"

#include <omp.h>

#include <stdexcept>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

namespace dlk::perf {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;
using dims = dnnl::memory::dims;

dnnl::memory::desc md(const dims &shape, tag layout, dt type = dt::f32) {
  return {shape, type, layout};
}

dt data_type(dlk_dtype type) {
  switch (type) {
    case DLK_DTYPE_BF16: return dt::bf16;
    case DLK_DTYPE_F16: return dt::f16;
    case DLK_DTYPE_U8: return dt::u8;
    case DLK_DTYPE_S8: return dt::s8;
    case DLK_DTYPE_S32: return dt::s32;
    default: return dt::f32;
  }
}

[[noreturn]] void rethrow(const dnnl::error &e) {
  throw std::runtime_error(std::string("oneDNN peer: ") + e.what());
}

}  // namespace

const char *conv_pass_name(ConvPass pass) {
  switch (pass) {
    case ConvPass::forward: return "fwd";
    case ConvPass::backward_data: return "bwd_data";
    case ConvPass::backward_weights: return "bwd_weights";
  }
  return "?";
}

struct OneDnnConv::State {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::primitive primitive;
  std::string impl;
  std::unordered_map<int, dnnl::memory> args;
  // The `any` form: reorders between the caller's plain arrays and oneDNN's layouts.
  struct Reorder {
    dnnl::primitive primitive;
    dnnl::memory from, to;
  };
  std::vector<Reorder> data_reorders, weights_reorders;

  // Binds argument `arg` to the caller's array in layout `plain`, through a
  // memory in `chosen` and a reorder where oneDNN chose another layout. An
  // input is reordered once now, so the primitive reads the caller's data.
  void bind(int arg, const dnnl::memory::desc &plain, void *user, const dnnl::memory::desc &chosen, bool input,
            bool weights) {
    const dnnl::memory user_memory(plain, engine, user);
    if (chosen == plain) {
      args[arg] = user_memory;
      return;
    }
    const dnnl::memory internal(chosen, engine);
    Reorder r = input ? Reorder{dnnl::reorder(user_memory, internal), user_memory, internal}
                      : Reorder{dnnl::reorder(internal, user_memory), internal, user_memory};
    if (input) r.primitive.execute(stream, {{DNNL_ARG_FROM, r.from}, {DNNL_ARG_TO, r.to}});
    (weights ? weights_reorders : data_reorders).push_back(r);
    args[arg] = internal;
  }

  void run_reorders(const std::vector<Reorder> &reorders, int threads) {
    omp_set_num_threads(threads);
    for (const Reorder &r : reorders) r.primitive.execute(stream, {{DNNL_ARG_FROM, r.from}, {DNNL_ARG_TO, r.to}});
    stream.wait();
  }
};

OneDnnConv::OneDnnConv(const dlk_conv2d_desc &d, ConvPass pass, bool blocked, const ConvTensors &t,
                       int threads)
    : state_(std::make_unique<State>()) {
  // oneDNN's jit primitives fix their thread count when they are created and then
  // ask OpenMP for exactly that many, whatever run() sets: created on the default
  // (every core), a "1 thread" run of oneDNN-any used 2 (res2a above the 1-thread peak).
  omp_set_num_threads(threads);
  State &s = *state_;
  int64_t oh = 0, ow = 0;
  dlk_conv2d_output_shape(&d, &oh, &ow);
  const dims src_dims{d.n, d.c, d.h, d.w}, dst_dims{d.n, d.k, oh, ow};
  const dims wei_dims = d.groups == 1 ? dims{d.k, d.c, d.kh, d.kw}
                                      : dims{d.groups, d.k / d.groups, d.c / d.groups, d.kh, d.kw};
  const bool nhwc = d.format == DLK_FORMAT_NHWC;
  const tag data_tag = nhwc ? tag::nhwc : tag::nchw;
  const tag wei_tag = d.groups == 1 ? (nhwc ? tag::ohwi : tag::oihw) : (nhwc ? tag::gohwi : tag::goihw);
  const dims strides{d.stride_h, d.stride_w}, dilates{d.dilation_h - 1, d.dilation_w - 1};
  const dims pad_l{d.pad_h, d.pad_w};
  const dims pad_r{(oh - 1) * d.stride_h + (d.kh - 1) * d.dilation_h + 1 - d.h - d.pad_h,
                   (ow - 1) * d.stride_w + (d.kw - 1) * d.dilation_w + 1 - d.w - d.pad_w};
  const auto algo = dnnl::algorithm::convolution_direct;
  try {
    const dt src_type = data_type(d.src_type), wei_type = data_type(d.weights_type),
             dst_type = data_type(d.dst_type);
    const dnnl::memory::desc src_plain = md(src_dims, data_tag, src_type),
                             dst_plain = md(dst_dims, data_tag, dst_type),
                             wei_plain = md(wei_dims, wei_tag, wei_type);
    // What the primitive is told: the plain layouts, or `any` for each.
    const dnnl::memory::desc src_md = blocked ? md(src_dims, tag::any, src_type) : src_plain,
                             dst_md = blocked ? md(dst_dims, tag::any, dst_type) : dst_plain,
                             wei_md = blocked ? md(wei_dims, tag::any, wei_type) : wei_plain;
    const auto fwd_desc = [&](dnnl::prop_kind kind) {
      return dnnl::convolution_forward::desc(kind, algo, src_md, wei_md, dst_md, strides, dilates, pad_l, pad_r);
    };
    if (pass == ConvPass::forward) {
      // s8/u8 dst (dlk-perf conv's int8_u8): the scales per output channel
      // and ReLU, as dlk applies them before requantizing.
      dnnl::primitive_attr attr;
      if (d.scale_mode == DLK_SCALE_PER_CHANNEL)
        attr.set_output_scales(1 << 1, std::vector<float>(d.scales, d.scales + d.k));
      if (d.relu) {
        dnnl::post_ops ops;
        ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
        attr.set_post_ops(ops);
      }
      const dnnl::convolution_forward::primitive_desc pd(fwd_desc(dnnl::prop_kind::forward_inference), attr,
                                                         s.engine);
      s.primitive = dnnl::convolution_forward(pd);
      s.impl = pd.impl_info_str();
      s.bind(DNNL_ARG_SRC, src_plain, t.src, pd.src_desc(), true, false);
      s.bind(DNNL_ARG_WEIGHTS, wei_plain, t.weights, pd.weights_desc(), true, true);
      s.bind(DNNL_ARG_DST, dst_plain, t.dst, pd.dst_desc(), false, false);
    } else {
      const dnnl::convolution_forward::primitive_desc hint(fwd_desc(dnnl::prop_kind::forward_training), s.engine);
      if (pass == ConvPass::backward_data) {
        const dnnl::convolution_backward_data::primitive_desc pd(
            dnnl::convolution_backward_data::desc(algo, src_md, wei_md, dst_md, strides, dilates, pad_l, pad_r),
            s.engine, hint);
        s.primitive = dnnl::convolution_backward_data(pd);
        s.impl = pd.impl_info_str();
        s.bind(DNNL_ARG_DIFF_DST, dst_plain, t.dst, pd.diff_dst_desc(), true, false);
        s.bind(DNNL_ARG_WEIGHTS, wei_plain, t.weights, pd.weights_desc(), true, true);
        s.bind(DNNL_ARG_DIFF_SRC, src_plain, t.src, pd.diff_src_desc(), false, false);
      } else {
        const dnnl::convolution_backward_weights::primitive_desc pd(
            dnnl::convolution_backward_weights::desc(algo, src_md, wei_md, dst_md, strides, dilates, pad_l,
                                                     pad_r),
            s.engine, hint);
        s.primitive = dnnl::convolution_backward_weights(pd);
        s.impl = pd.impl_info_str();
        s.bind(DNNL_ARG_SRC, src_plain, t.src, pd.src_desc(), true, false);
        s.bind(DNNL_ARG_DIFF_DST, dst_plain, t.dst, pd.diff_dst_desc(), true, false);
        s.bind(DNNL_ARG_DIFF_WEIGHTS, wei_plain, t.weights, pd.diff_weights_desc(), false, true);
      }
    }
    s.stream.wait();
  } catch (const dnnl::error &e) {
    rethrow(e);
  }
}

OneDnnConv::~OneDnnConv() = default;

void OneDnnConv::run(int threads) const {
  omp_set_num_threads(threads);
  State &s = *state_;
  s.primitive.execute(s.stream, s.args);
  s.stream.wait();
}

void OneDnnConv::reorder_data(int threads) const { state_->run_reorders(state_->data_reorders, threads); }
void OneDnnConv::reorder_weights(int threads) const { state_->run_reorders(state_->weights_reorders, threads); }
bool OneDnnConv::has_data_reorders() const { return !state_->data_reorders.empty(); }
bool OneDnnConv::has_weights_reorder() const { return !state_->weights_reorders.empty(); }

bool OneDnnConv::is_reference() const {
  const std::string &impl = state_->impl;
  return impl.rfind("ref", 0) == 0 || impl.find(":ref") != std::string::npos;
}

std::string OneDnnConv::implementation() const { return state_->impl; }

struct OneDnnPool::State {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::primitive primitive;
  std::string impl;
  std::unordered_map<int, dnnl::memory> args;
};

OneDnnPool::OneDnnPool(const dlk_pool2d_desc &d, PoolPass pass, float *src, float *dst)
    : state_(std::make_unique<State>()) {
  State &s = *state_;
  int64_t oh = 0, ow = 0;
  dlk_pool2d_output_shape(&d, &oh, &ow);
  const dnnl::memory::desc src_md = md({d.n, d.c, d.h, d.w}, tag::nchw),
                           dst_md = md({d.n, d.c, oh, ow}, tag::nchw);
  const dims strides{d.stride_h, d.stride_w}, kernel{d.kh, d.kw}, pad_l{d.pad_h, d.pad_w};
  const dims pad_r{(oh - 1) * d.stride_h + d.kh - d.h - d.pad_h,
                   (ow - 1) * d.stride_w + d.kw - d.w - d.pad_w};
  const dnnl::algorithm algo = d.kind == DLK_POOL_MAX ? dnnl::algorithm::pooling_max
                               : d.kind == DLK_POOL_AVG_INCLUDE_PADDING
                                   ? dnnl::algorithm::pooling_avg_include_padding
                                   : dnnl::algorithm::pooling_avg_exclude_padding;
  try {
    const dnnl::pooling_forward::primitive_desc fwd(
        dnnl::pooling_forward::desc(pass == PoolPass::forward_inference
                                        ? dnnl::prop_kind::forward_inference
                                        : dnnl::prop_kind::forward_training,
                                    algo, src_md, dst_md, strides, kernel, pad_l, pad_r),
        s.engine);
    dnnl::memory src_mem(src_md, s.engine, src), dst_mem(dst_md, s.engine, dst);
    s.args = {{DNNL_ARG_SRC, src_mem}, {DNNL_ARG_DST, dst_mem}};
    if (d.kind == DLK_POOL_MAX && pass != PoolPass::forward_inference)
      s.args[DNNL_ARG_WORKSPACE] = dnnl::memory(fwd.workspace_desc(), s.engine);
    s.primitive = dnnl::pooling_forward(fwd);
    s.impl = fwd.impl_info_str();
    if (pass != PoolPass::backward) return;
    s.primitive.execute(s.stream, s.args);  // the workspace backward reads
    s.stream.wait();
    const dnnl::pooling_backward::primitive_desc bwd(
        dnnl::pooling_backward::desc(algo, src_md, dst_md, strides, kernel, pad_l, pad_r),
        s.engine, fwd);
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_DIFF_DST, dst_mem},
                                                  {DNNL_ARG_DIFF_SRC, src_mem}};
    if (d.kind == DLK_POOL_MAX) args[DNNL_ARG_WORKSPACE] = s.args.at(DNNL_ARG_WORKSPACE);
    s.args = args;
    s.primitive = dnnl::pooling_backward(bwd);
    s.impl = bwd.impl_info_str();
  } catch (const dnnl::error &e) {
    rethrow(e);
  }
}

OneDnnPool::~OneDnnPool() = default;

void OneDnnPool::run(int threads) const {
  omp_set_num_threads(threads);
  state_->primitive.execute(state_->stream, state_->args);
  state_->stream.wait();
}

std::string OneDnnPool::implementation() const { return state_->impl; }

}  // namespace dlk::perf
