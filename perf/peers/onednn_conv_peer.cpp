#include "perf/peers/onednn_conv_peer.hpp"

#include <omp.h>

#include <stdexcept>
#include <unordered_map>

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
  // The `any` form: user (nchw) memories and the reorders between them.
  dnnl::memory src_user, dst_user, src_blocked, dst_blocked;
  dnnl::primitive src_in, dst_out;
};

OneDnnConv::OneDnnConv(const dlk_conv2d_desc &d, ConvPass pass, bool blocked, const ConvTensors &t)
    : state_(std::make_unique<State>()) {
  State &s = *state_;
  int64_t oh = 0, ow = 0;
  dlk_conv2d_output_shape(&d, &oh, &ow);
  const dims src_dims{d.n, d.c, d.h, d.w}, dst_dims{d.n, d.k, oh, ow};
  const dims wei_dims = d.groups == 1 ? dims{d.k, d.c, d.kh, d.kw}
                                      : dims{d.groups, d.k / d.groups, d.c / d.groups, d.kh, d.kw};
  const tag wei_tag = d.groups == 1 ? tag::oihw : tag::goihw;
  const dims strides{d.stride_h, d.stride_w}, dilates{d.dilation_h - 1, d.dilation_w - 1};
  const dims pad_l{d.pad_h, d.pad_w};
  const dims pad_r{(oh - 1) * d.stride_h + (d.kh - 1) * d.dilation_h + 1 - d.h - d.pad_h,
                   (ow - 1) * d.stride_w + (d.kw - 1) * d.dilation_w + 1 - d.w - d.pad_w};
  const tag data = blocked ? tag::any : tag::nchw, weights = blocked ? tag::any : wei_tag;
  const auto algo = dnnl::algorithm::convolution_direct;
  try {
    const dt src_type = data_type(d.src_type), wei_type = data_type(d.weights_type),
             dst_type = data_type(d.dst_type);
    const auto fwd_desc = [&](dnnl::prop_kind kind) {
      return dnnl::convolution_forward::desc(
          kind, algo, md(src_dims, data, src_type), md(wei_dims, weights, wei_type),
          md(dst_dims, data, dst_type), strides, dilates, pad_l, pad_r);
    };
    const dnnl::memory::desc src_plain = md(src_dims, tag::nchw, src_type),
                             dst_plain = md(dst_dims, tag::nchw, dst_type),
                             wei_plain = md(wei_dims, wei_tag, wei_type);
    if (pass == ConvPass::forward) {
      const dnnl::convolution_forward::primitive_desc pd(
          fwd_desc(dnnl::prop_kind::forward_inference), s.engine);
      s.primitive = dnnl::convolution_forward(pd);
      s.impl = pd.impl_info_str();
      s.src_user = dnnl::memory(src_plain, s.engine, t.src);
      s.dst_user = dnnl::memory(dst_plain, s.engine, t.dst);
      dnnl::memory wei_user(wei_plain, s.engine, t.weights);
      dnnl::memory src = s.src_user, dst = s.dst_user, wei = wei_user;
      if (pd.src_desc() != src_plain) {
        src = dnnl::memory(pd.src_desc(), s.engine);
        s.src_in = dnnl::reorder(s.src_user, src);
        dnnl::reorder(s.src_user, src).execute(s.stream, s.src_user, src);
      }
      if (pd.weights_desc() != wei_plain) {
        wei = dnnl::memory(pd.weights_desc(), s.engine);
        dnnl::reorder(wei_user, wei).execute(s.stream, wei_user, wei);
      }
      if (pd.dst_desc() != dst_plain) {
        dst = dnnl::memory(pd.dst_desc(), s.engine);
        s.dst_out = dnnl::reorder(dst, s.dst_user);
      }
      s.stream.wait();
      s.args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
      s.src_blocked = src, s.dst_blocked = dst;
      return;
    }
    if (blocked) throw std::runtime_error("oneDNN peer: backward passes run in the plain form only");
    const dnnl::convolution_forward::primitive_desc hint(
        fwd_desc(dnnl::prop_kind::forward_training), s.engine);
    dnnl::memory src(src_plain, s.engine, t.src), wei(wei_plain, s.engine, t.weights),
        dst(dst_plain, s.engine, t.dst);
    if (pass == ConvPass::backward_data) {
      const dnnl::convolution_backward_data::primitive_desc pd(
          dnnl::convolution_backward_data::desc(algo, src_plain, wei_plain, dst_plain, strides,
                                                dilates, pad_l, pad_r),
          s.engine, hint);
      s.primitive = dnnl::convolution_backward_data(pd);
      s.impl = pd.impl_info_str();
      s.args = {{DNNL_ARG_DIFF_DST, dst}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DIFF_SRC, src}};
      return;
    }
    const dnnl::convolution_backward_weights::primitive_desc pd(
        dnnl::convolution_backward_weights::desc(algo, src_plain, wei_plain, dst_plain, strides,
                                                 dilates, pad_l, pad_r),
        s.engine, hint);
    s.primitive = dnnl::convolution_backward_weights(pd);
    s.impl = pd.impl_info_str();
    s.args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, dst}, {DNNL_ARG_DIFF_WEIGHTS, wei}};
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

void OneDnnConv::reorder_in_out(int threads) const {
  omp_set_num_threads(threads);
  State &s = *state_;
  if (s.src_in) s.src_in.execute(s.stream, {{DNNL_ARG_FROM, s.src_user}, {DNNL_ARG_TO, s.src_blocked}});
  if (s.dst_out) s.dst_out.execute(s.stream, {{DNNL_ARG_FROM, s.dst_blocked}, {DNNL_ARG_TO, s.dst_user}});
  s.stream.wait();
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
