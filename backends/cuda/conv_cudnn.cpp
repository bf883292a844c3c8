#include "backends/cuda/conv_cudnn.hpp"

#include <string>
#include <vector>

#include "backends/cuda/conv_kernels.hpp"
#include "backends/cuda/cuda_check.hpp"

namespace dlk::cuda {
namespace {

// What cuDNN's search may use; the chosen algorithm's own need is what the
// workspace keeps afterwards.
constexpr size_t kSearchWorkspaceBytes = size_t{256} << 20;

void check_cudnn(cudnnStatus_t status, const char *what) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  cudaGetLastError();
  throw core::Error(status == CUDNN_STATUS_ALLOC_FAILED ? DLK_STATUS_OUT_OF_MEMORY : DLK_STATUS_RUNTIME_ERROR,
                    std::string("cuda: ") + what + ": " + cudnnGetErrorString(status));
}

cudnnDataType_t cudnn_type(dlk_dtype t) {
  switch (t) {
    case DLK_DTYPE_F16: return CUDNN_DATA_HALF;
    case DLK_DTYPE_BF16: return CUDNN_DATA_BFLOAT16;
    default: return CUDNN_DATA_FLOAT;
  }
}

cudnnMathType_t cudnn_math(ConvMath m) {
  switch (m) {
    case ConvMath::fma: return CUDNN_FMA_MATH;
    case ConvMath::tf32_allowed: return CUDNN_DEFAULT_MATH;
    default: return CUDNN_TENSOR_OP_MATH;
  }
}

const char *direction_name(ConvDirection d) {
  switch (d) {
    case ConvDirection::backward_data: return "bwd_data";
    case ConvDirection::backward_weights: return "bwd_weights";
    default: return "fwd";
  }
}

// The algorithms whose results keep dlk's numerics contract (products summed in f32, the result
// rounded once to its type): FFT and Winograd transform the operands first, so their error does not
// follow K x eps. Measured on an H100: Winograd's f16 forward missed the bound by up to 1.5x.
bool within_contract(cudnnConvolutionFwdAlgo_t a) {
  return a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM || a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
         a == CUDNN_CONVOLUTION_FWD_ALGO_GEMM || a == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
}
bool within_contract(cudnnConvolutionBwdDataAlgo_t a) {
  return a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 || a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
}
bool within_contract(cudnnConvolutionBwdFilterAlgo_t a) {
  return a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 || a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 ||
         a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3;
}

// Picks the first result (cuDNN sorts them: by measured time after a search, by predicted
// speed from its heuristics) that succeeded, keeps the contract and fits the search workspace.
// The non-deterministic backward algorithms add partial sums atomically, in an order that changes
// from run to run, and in the output's type, which for f16/bf16 rounds every partial sum (up to
// 16x the bound on an H100): 16-bit types take deterministic ones only, and so does f32 unless
// DLK_CUDA_DETERMINISTIC=0. A result that needs operands converted to f16 is never taken.
template <class Perf>
const Perf &first_allowed(const std::vector<Perf> &results, int returned, dlk_dtype type, bool deterministic) {
  for (int i = 0; i < returned; ++i) {
    const Perf &r = results[static_cast<size_t>(i)];
    if (r.status != CUDNN_STATUS_SUCCESS || !within_contract(r.algo)) continue;
    if (r.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION || r.memory > kSearchWorkspaceBytes) continue;
    if ((deterministic || type != DLK_DTYPE_F32) && r.determinism != CUDNN_DETERMINISTIC) continue;
    return r;
  }
  throw core::Error(DLK_STATUS_UNSUPPORTED,
                    std::string("cuda: cuDNN has no ") + (deterministic ? "deterministic " : "") +
                        "algorithm within dlk's numerics contract for this convolution (shape, groups, "
                        "dilation and type)" +
                        (deterministic && type == DLK_DTYPE_F32 ? "; DLK_CUDA_DETERMINISTIC=0 allows the others" : ""));
}

}  // namespace

struct CudnnConv::Plan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  int algo = -1;  // of the direction's algorithm enum; -1 until searched
  size_t workspace_bytes = 0;
  std::string implementation;
  ~Plan() {
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (x) cudnnDestroyTensorDescriptor(x);
  }
};

CudnnConv::CudnnConv(cudaStream_t stream, bool allow_tf32, bool deterministic)
    : stream_(stream), allow_tf32_(allow_tf32), deterministic_(deterministic), workspace_(stream) {
  check_cudnn(cudnnCreate(&handle_), "cudnnCreate (is cuDNN 9 installed?)");
  check_cudnn(cudnnSetStream(handle_, stream_), "cudnnSetStream");
}

CudnnConv::~CudnnConv() {
  cache_.clear();
  if (handle_) cudnnDestroy(handle_);
}

CudnnConv::Plan &CudnnConv::plan(ConvDirection direction, const core::Conv2dArgs &a) {
  ConvKey key;
  key.direction = direction;
  key.dtype = a.desc.src_type;
  key.math = conv_math(key.dtype, allow_tf32_);
  const char *why_not = nullptr;
  if (!cudnn_conv_shape(a, key.shape, why_not))
    throw core::Error(DLK_STATUS_UNSUPPORTED, std::string("cuda: ") + why_not);

  std::lock_guard<std::mutex> lock(cache_mutex_);
  auto found = cache_.find(key);
  if (found != cache_.end()) return *found->second;

  auto p = std::make_unique<Plan>();
  const CudnnConvShape &s = key.shape;
  const cudnnTensorFormat_t format = s.nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  const cudnnDataType_t type = cudnn_type(key.dtype);
  check_cudnn(cudnnCreateTensorDescriptor(&p->x), "cudnnCreateTensorDescriptor");
  check_cudnn(cudnnSetTensor4dDescriptor(p->x, format, type, s.n, s.c, s.h, s.w), "cudnnSetTensor4dDescriptor (src)");
  check_cudnn(cudnnCreateTensorDescriptor(&p->y), "cudnnCreateTensorDescriptor");
  check_cudnn(cudnnSetTensor4dDescriptor(p->y, format, type, s.n, s.k, s.oh, s.ow), "cudnnSetTensor4dDescriptor (dst)");
  check_cudnn(cudnnCreateFilterDescriptor(&p->w), "cudnnCreateFilterDescriptor");
  check_cudnn(cudnnSetFilter4dDescriptor(p->w, type, format, s.k, s.c_per_group, s.kh, s.kw),
              "cudnnSetFilter4dDescriptor");
  check_cudnn(cudnnCreateConvolutionDescriptor(&p->conv), "cudnnCreateConvolutionDescriptor");
  check_cudnn(cudnnSetConvolution2dDescriptor(p->conv, s.pad_h, s.pad_w, s.stride_h, s.stride_w, s.dilation_h,
                                              s.dilation_w, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              "cudnnSetConvolution2dDescriptor");
  check_cudnn(cudnnSetConvolutionGroupCount(p->conv, s.groups), "cudnnSetConvolutionGroupCount");
  check_cudnn(cudnnSetConvolutionMathType(p->conv, cudnn_math(key.math)), "cudnnSetConvolutionMathType");
  search(*p, direction, a);
  return *cache_.emplace(key, std::move(p)).first->second;
}

void CudnnConv::search(Plan &p, ConvDirection direction, const core::Conv2dArgs &a) {
  // For f16/bf16 the chosen result's math type goes onto the descriptor: a result found under
  // tensor-op math may be an FMA kernel (odd channel counts), and running it under the other math
  // type is a CUDNN_STATUS_BAD_PARAM (seen on an H100 for f16 1x1 stride-2 backward data). f32
  // keeps the descriptor's math, which is what rules TF32 in or out.
  const bool half = a.desc.src_type != DLK_DTYPE_F32;
  const auto take = [&p, half](const auto &best) {
    p.algo = static_cast<int>(best.algo), p.workspace_bytes = best.memory;
    if (half)
      check_cudnn(cudnnSetConvolutionMathType(p.conv, best.mathType),
                  "cudnnSetConvolutionMathType (chosen algorithm)");
  };
  // Deterministic (the default): cuDNN's heuristics rank the algorithms from the shape alone, so
  // every run, and a run resumed from a checkpoint, takes the same one; a timed search ranks by
  // measured times, which change from run to run, and algorithms that are each deterministic do
  // not add in the same order as each other.
  const dlk_dtype type = a.desc.src_type;
  void *workspace = deterministic_ ? nullptr : workspace_.get(kSearchWorkspaceBytes);
  int returned = 0;
  switch (direction) {
    case ConvDirection::forward: {
      std::vector<cudnnConvolutionFwdAlgoPerf_t> results(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
      const int asked = int(results.size());
      if (deterministic_)
        check_cudnn(cudnnGetConvolutionForwardAlgorithm_v7(handle_, p.x, p.w, p.conv, p.y, asked, &returned,
                                                           results.data()),
                    "cudnnGetConvolutionForwardAlgorithm_v7");
      else
        check_cudnn(cudnnFindConvolutionForwardAlgorithmEx(handle_, p.x, a.src, p.w, a.weights, p.conv, p.y, a.dst,
                                                           asked, &returned, results.data(), workspace,
                                                           kSearchWorkspaceBytes),
                    "cudnnFindConvolutionForwardAlgorithmEx");
      take(first_allowed(results, returned, type, deterministic_));
      break;
    }
    case ConvDirection::backward_data: {
      std::vector<cudnnConvolutionBwdDataAlgoPerf_t> results(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
      const int asked = int(results.size());
      if (deterministic_)
        check_cudnn(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle_, p.w, p.y, p.conv, p.x, asked, &returned,
                                                                results.data()),
                    "cudnnGetConvolutionBackwardDataAlgorithm_v7");
      else
        check_cudnn(cudnnFindConvolutionBackwardDataAlgorithmEx(handle_, p.w, a.weights, p.y, a.diff_dst, p.conv,
                                                                p.x, a.diff_src, asked, &returned, results.data(),
                                                                workspace, kSearchWorkspaceBytes),
                    "cudnnFindConvolutionBackwardDataAlgorithmEx");
      take(first_allowed(results, returned, type, deterministic_));
      break;
    }
    case ConvDirection::backward_weights: {
      std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> results(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
      const int asked = int(results.size());
      if (deterministic_)
        check_cudnn(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle_, p.x, p.y, p.conv, p.w, asked, &returned,
                                                                  results.data()),
                    "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
      else
        check_cudnn(cudnnFindConvolutionBackwardFilterAlgorithmEx(handle_, p.x, a.src, p.y, a.diff_dst, p.conv,
                                                                  p.w, a.diff_weights, asked, &returned,
                                                                  results.data(), workspace, kSearchWorkspaceBytes),
                    "cudnnFindConvolutionBackwardFilterAlgorithmEx");
      take(first_allowed(results, returned, type, deterministic_));
      break;
    }
  }
  p.implementation = std::string("cudnn:conv_") + direction_name(direction) + "_algo" + std::to_string(p.algo);
}

core::OpResult CudnnConv::forward(const core::Conv2dArgs &a) {
  Plan &p = plan(ConvDirection::forward, a);
  const float one = 1.0f, zero = 0.0f;
  check_cudnn(cudnnConvolutionForward(handle_, &one, p.x, a.src, p.w, a.weights, p.conv,
                                      static_cast<cudnnConvolutionFwdAlgo_t>(p.algo),
                                      workspace_.get(p.workspace_bytes), p.workspace_bytes, &zero, p.y, a.dst),
              "cudnnConvolutionForward");
  if (!a.bias && !a.desc.relu) return {p.implementation, 0};
  check_cuda(launch_bias_relu(a, nullptr, stream_), "bias_relu kernel launch");
  return {p.implementation + "+dlk_bias_relu", 0};
}

core::OpResult CudnnConv::backward_data(const core::Conv2dArgs &a) {
  Plan &p = plan(ConvDirection::backward_data, a);
  const float one = 1.0f, zero = 0.0f;
  check_cudnn(cudnnConvolutionBackwardData(handle_, &one, p.w, a.weights, p.y, a.diff_dst, p.conv,
                                           static_cast<cudnnConvolutionBwdDataAlgo_t>(p.algo),
                                           workspace_.get(p.workspace_bytes), p.workspace_bytes, &zero, p.x,
                                           a.diff_src),
              "cudnnConvolutionBackwardData");
  return {p.implementation, 0};
}

core::OpResult CudnnConv::backward_weights(const core::Conv2dArgs &a) {
  Plan &p = plan(ConvDirection::backward_weights, a);
  const float one = 1.0f, zero = 0.0f;
  check_cudnn(cudnnConvolutionBackwardFilter(handle_, &one, p.x, a.src, p.y, a.diff_dst, p.conv,
                                             static_cast<cudnnConvolutionBwdFilterAlgo_t>(p.algo),
                                             workspace_.get(p.workspace_bytes), p.workspace_bytes, &zero, p.w,
                                             a.diff_weights),
              "cudnnConvolutionBackwardFilter");
  if (!a.diff_bias) return {p.implementation, 0};
  check_cuda(launch_diff_bias(a, stream_), "diff_bias kernel launch");
  return {p.implementation + "+dlk_diff_bias", 0};
}

}  // namespace dlk::cuda
