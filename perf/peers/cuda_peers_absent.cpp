// A dlk-perf built without the CUDA toolkit: no cuBLASLt or cuDNN to call.
#include <stdexcept>

#include "perf/peers/cuda_peers.hpp"

namespace dlk::perf {
namespace {

[[noreturn]] void absent(const char *peer) {
  throw std::runtime_error(std::string(peer) +
                           " peer: this dlk-perf was built without the CUDA toolkit (DLK_WITH_CUDA)");
}

}  // namespace

bool have_cuda_peers() { return false; }

std::unique_ptr<DevicePeer> make_cublaslt_gemm_peer(dlk_dtype, dlk_dtype, dlk_dtype, std::int64_t, std::int64_t,
                                                    std::int64_t, const void *, const void *) {
  absent("cuBLASLt");
}

std::unique_ptr<DevicePeer> make_cudnn_conv_peer(const dlk_conv2d_desc &, ConvPass, const void *, const void *,
                                                 const void *) {
  absent("cuDNN");
}

}  // namespace dlk::perf
