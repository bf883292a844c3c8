#include "core/op_record.hpp"

namespace dlk::core {
namespace {

double elements_bytes(double elements, dlk_dtype t) {
  return elements * static_cast<double>(dlk_dtype_size(t));
}

std::string types3(dlk_dtype a, dlk_dtype b, dlk_dtype c) {
  return std::string(dlk_dtype_name(a)) + ":" + dlk_dtype_name(b) + ":" + dlk_dtype_name(c);
}

const char *format_name(dlk_format f) { return f == DLK_FORMAT_NHWC ? "nhwc" : "nchw"; }

std::string hw(int64_t a, int64_t b) { return std::to_string(a) + "x" + std::to_string(b); }

}  // namespace

OpSummary summarize_gemm(const GemmArgs &g, bool with_text) {
  OpSummary s;
  s.op = DLK_OP_GEMM;
  if (with_text) {
    s.types = types3(g.a.dtype, g.b.dtype, g.c_type);
    s.problem = std::string(g.layout == DLK_ROW_MAJOR ? "row:" : "col:") +
                (g.trans_a == DLK_TRANSPOSE ? 't' : 'n') +
                (g.trans_b == DLK_TRANSPOSE ? 't' : 'n') + " m=" + std::to_string(g.m) +
                " n=" + std::to_string(g.n) + " k=" + std::to_string(g.k) +
                " batch=" + std::to_string(g.batch);
  }
  const double batch = static_cast<double>(g.batch);
  const double m = static_cast<double>(g.m), n = static_cast<double>(g.n),
               k = static_cast<double>(g.k);
  s.flops = 2.0 * m * n * k * batch;
  const double a_count = g.a.batch_stride ? batch : 1.0;
  const double b_count = g.b.batch_stride ? batch : 1.0;
  const double c_passes = g.beta != 0.0f ? 2.0 : 1.0;
  s.bytes = elements_bytes(m * k * a_count, g.a.dtype) +
            elements_bytes(k * n * b_count, g.b.dtype) +
            elements_bytes(m * n * batch * c_passes, g.c_type);
  return s;
}

OpSummary summarize_conv2d(dlk_op op, const Conv2dArgs &a, bool with_text) {
  const dlk_conv2d_desc &d = a.desc;
  OpSummary s;
  s.op = op;
  if (with_text) {
    s.types = types3(d.src_type, d.weights_type, d.dst_type);
    s.problem = std::string(format_name(d.format)) + " n=" + std::to_string(d.n) +
                " c=" + std::to_string(d.c) + " h=" + std::to_string(d.h) +
                " w=" + std::to_string(d.w) + " k=" + std::to_string(d.k) +
                " kernel=" + hw(d.kh, d.kw) + " stride=" + hw(d.stride_h, d.stride_w) +
                " pad=" + hw(d.pad_h, d.pad_w) + " dilation=" + hw(d.dilation_h, d.dilation_w) +
                " groups=" + std::to_string(d.groups) + (d.relu ? " relu" : "");
  }
  const double src = static_cast<double>(d.n * d.c * d.h * d.w);
  const double dst = static_cast<double>(d.n * d.k * a.oh * a.ow);
  const double wei = static_cast<double>(d.k * a.c_per_group * d.kh * d.kw);
  s.flops = 2.0 * dst * static_cast<double>(a.c_per_group * d.kh * d.kw);
  s.bytes = elements_bytes(src, d.src_type) + elements_bytes(wei, d.weights_type) +
            elements_bytes(dst, d.dst_type);
  return s;
}

OpSummary summarize_pool2d(dlk_op op, const Pool2dArgs &a, bool with_text) {
  const dlk_pool2d_desc &d = a.desc;
  OpSummary s;
  s.op = op;
  if (with_text) {
    s.types = dlk_dtype_name(d.dtype);
    const char *kind = d.kind == DLK_POOL_MAX                   ? "max"
                       : d.kind == DLK_POOL_AVG_INCLUDE_PADDING ? "avg_include_padding"
                                                                : "avg_exclude_padding";
    s.problem = std::string(format_name(d.format)) + " " + kind + " n=" + std::to_string(d.n) +
                " c=" + std::to_string(d.c) + " h=" + std::to_string(d.h) +
                " w=" + std::to_string(d.w) + " kernel=" + hw(d.kh, d.kw) +
                " stride=" + hw(d.stride_h, d.stride_w) + " pad=" + hw(d.pad_h, d.pad_w);
  }
  const double src = static_cast<double>(d.n * d.c * d.h * d.w);
  const double dst = static_cast<double>(d.n * d.c * a.oh * a.ow);
  s.flops = dst * static_cast<double>(d.kh * d.kw);
  const bool with_argmax = a.argmax || a.argmax_in;
  s.bytes = elements_bytes(src + dst, d.dtype) + (with_argmax ? dst * 4.0 : 0.0);
  return s;
}

}  // namespace dlk::core
