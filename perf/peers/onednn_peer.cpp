#include "perf/peers/onednn_peer.hpp"

#include <omp.h>

#include <stdexcept>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

namespace dlk::perf {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

dt onednn_type(dlk_dtype t) {
  switch (t) {
    case DLK_DTYPE_F32: return dt::f32;
    case DLK_DTYPE_BF16: return dt::bf16;
    case DLK_DTYPE_U8: return dt::u8;
    case DLK_DTYPE_S8: return dt::s8;
    case DLK_DTYPE_S32: return dt::s32;
    default: break;
  }
  throw std::runtime_error("oneDNN peer: no matmul for this dtype");
}

bool supported(dlk_dtype a, dlk_dtype b, dlk_dtype c) {
  return (a == DLK_DTYPE_F32 && b == DLK_DTYPE_F32 && c == DLK_DTYPE_F32) ||
         (a == DLK_DTYPE_BF16 && b == DLK_DTYPE_BF16 && c == DLK_DTYPE_F32) ||
         (a == DLK_DTYPE_U8 && b == DLK_DTYPE_S8 && c == DLK_DTYPE_S32);
}

}  // namespace

struct OneDnnMatmul::State {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul matmul;
  dnnl::memory a, b, c;
};

OneDnnMatmul::OneDnnMatmul(std::int64_t m, std::int64_t n, std::int64_t k, dlk_dtype a_type,
                           dlk_dtype b_type, dlk_dtype c_type, const void *a, const void *b,
                           void *c, bool packed_b, int threads)
    : state_(std::make_unique<State>()) {
  // Created for the threads it runs on: oneDNN fixes the count at creation (onednn_conv_peer.cpp).
  omp_set_num_threads(threads);
  if (!supported(a_type, b_type, c_type))
    throw std::runtime_error("oneDNN peer: no matmul for this dtype combination");
  State &s = *state_;
  try {
    const dnnl::memory::desc a_md({m, k}, onednn_type(a_type), tag::ab);
    const dnnl::memory::desc b_plain({k, n}, onednn_type(b_type), tag::ab);
    const dnnl::memory::desc b_md({k, n}, onednn_type(b_type), packed_b ? tag::any : tag::ab);
    const dnnl::memory::desc c_md({m, n}, onednn_type(c_type), tag::ab);
    s.pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, c_md), s.engine);
    s.matmul = dnnl::matmul(s.pd);
    s.a = dnnl::memory(a_md, s.engine, const_cast<void *>(a));
    s.c = dnnl::memory(c_md, s.engine, c);
    dnnl::memory b_user(b_plain, s.engine, const_cast<void *>(b));
    if (s.pd.weights_desc() == b_plain) {
      s.b = b_user;
    } else {
      s.b = dnnl::memory(s.pd.weights_desc(), s.engine);
      dnnl::reorder(b_user, s.b).execute(s.stream, b_user, s.b);
      s.stream.wait();
    }
  } catch (const dnnl::error &e) {
    throw std::runtime_error(std::string("oneDNN peer: ") + e.what());
  }
}

OneDnnMatmul::~OneDnnMatmul() = default;

void OneDnnMatmul::run(int threads) const {
  omp_set_num_threads(threads);
  State &s = *state_;
  s.matmul.execute(s.stream, {{DNNL_ARG_SRC, s.a}, {DNNL_ARG_WEIGHTS, s.b}, {DNNL_ARG_DST, s.c}});
  s.stream.wait();
}

std::string OneDnnMatmul::implementation() const { return state_->pd.impl_info_str(); }

std::string OneDnnMatmul::version() {
  const dnnl_version_t *v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

}  // namespace dlk::perf
