// The CUDA libraries that dlk's cuda backend calls, called directly by dlk-perf on
// the same shapes and the same device buffers in the same process, so that
// `dlk-perf gemm|conv --backend cuda` shows what dlk adds to them (ratio dlk /
// direct). cuda_peers.cpp, built where the CUDA toolkit is: cuBLASLt with the
// settings dlk's backend uses (the heuristic's first algorithm, 32 MiB
// workspace, f32 compute; no TF32), cuDNN with its own fastest algorithm
// (cudnnFind*AlgorithmEx, no filter) under dlk's math types (f32: FMA, no TF32;
// bf16: tensor ops). Elsewhere cuda_peers_absent.cpp: every factory throws.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "dlk/dlk.h"
#include "perf/peers/onednn_conv_peer.hpp"

namespace dlk::perf {

class DevicePeer {
 public:
  virtual ~DevicePeer() = default;
  // One complete call, synchronized.
  virtual void run() = 0;
  // "cublaslt:gemm_f32 (algo N)", "cudnn:fwd_algo1", ...
  virtual std::string implementation() const = 0;
  // Copies the peer's output (its own device buffer) to host memory of
  // output_bytes(); false when it computes something other than dlk does (the
  // int8 GEMM peer), so there is nothing to compare.
  virtual bool download_output(void *host) const = 0;
  virtual size_t output_bytes() const = 0;
};

// Whether this dlk-perf was built with the CUDA peers (else the factories throw).
bool have_cuda_peers();

// C (m x n, row-major) = A (m x k) * B (k x n), alpha 1, beta 0, on dlk's device
// buffers a and b: f32 x f32 -> f32, or bf16 x bf16 -> f32. For int8 (a_type u8,
// which cuBLASLt has no int8 kernel for) the peer times cuBLASLt's own int8 GEMM,
// s8 x s8 -> s32 in its TN layout, on buffers of its own: what dlk's staged route
// (pack, s8 GEMM, epilogue) would cost nothing over; its output is not compared.
std::unique_ptr<DevicePeer> make_cublaslt_gemm_peer(dlk_dtype a_type, dlk_dtype b_type, dlk_dtype c_type,
                                                    std::int64_t m, std::int64_t n, std::int64_t k, const void *a,
                                                    const void *b);

// The pass of an NCHW convolution (f32 or bf16) on dlk's device buffers: src,
// weights and dst as dlk_conv2d_forward names them (dst is diff_dst for the
// backward passes); the peer writes its own output buffer.
std::unique_ptr<DevicePeer> make_cudnn_conv_peer(const dlk_conv2d_desc &desc, ConvPass pass, const void *src,
                                                 const void *weights, const void *dst);

}  // namespace dlk::perf
