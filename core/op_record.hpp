// What an op call is, in the terms of the verbose line and the roofline: its
// type signature, problem description, FLOPs and the bytes it must move.
#pragma once

#include <string>

#include "core/op_args.hpp"

namespace dlk::core {

struct OpSummary {
  dlk_op op = DLK_OP_GEMM;
  std::string types;    // "f32:f32:f32"
  std::string problem;  // "row:nt m=64 n=64 k=64 batch=1"
  double flops = 0;
  double bytes = 0;
};

// `with_text`: also the types and problem strings, which only the verbose line
// prints (formatting them costs a small GEMM a tenth of its time).
OpSummary summarize_gemm(const GemmArgs &args, bool with_text);
OpSummary summarize_conv2d(dlk_op op, const Conv2dArgs &args, bool with_text);
OpSummary summarize_pool2d(dlk_op op, const Pool2dArgs &args, bool with_text);

}  // namespace dlk::core
