#include "perf/peers/cuda_peers.hpp"

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "dlk/dlk.hpp"

namespace dlk::perf {
namespace {

// NVIDIA's recommendation for Hopper, and what dlk's backend gives cuBLASLt.
constexpr size_t kLtWorkspaceBytes = size_t{32} << 20;
constexpr size_t kConvSearchWorkspaceBytes = size_t{256} << 20;

void check(cudaError_t err, const char *what) {
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw std::runtime_error(std::string("CUDA peer: ") + what + ": " + cudaGetErrorString(err));
  }
}
void check(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLASLt peer: ") + what + ": " + cublasLtGetStatusName(status));
}
void check(cudnnStatus_t status, const char *what) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuDNN peer: ") + what + ": " + cudnnGetErrorString(status));
}

// Device memory of the peer's own, zeroed.
class DeviceMemory {
 public:
  explicit DeviceMemory(size_t bytes) : bytes_(bytes) {
    check(cudaMalloc(&ptr_, bytes ? bytes : 1), "cudaMalloc");
    check(cudaMemset(ptr_, 0, bytes ? bytes : 1), "cudaMemset");
  }
  ~DeviceMemory() { cudaFree(ptr_); }
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;
  void *get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  void *ptr_ = nullptr;
  size_t bytes_;
};

class Stream {
 public:
  Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

 private:
  cudaStream_t stream_ = nullptr;
};

cudaDataType_t lt_type(dlk_dtype t) {
  switch (t) {
    case DLK_DTYPE_BF16: return CUDA_R_16BF;
    case DLK_DTYPE_F16: return CUDA_R_16F;
    case DLK_DTYPE_S8: return CUDA_R_8I;
    case DLK_DTYPE_S32: return CUDA_R_32I;
    default: return CUDA_R_32F;
  }
}

// One cuBLASLt matmul D = op(a) op(b), column-major, as dlk's backend sets it up.
class LtGemmPeer final : public DevicePeer {
 public:
  LtGemmPeer(dlk_dtype a_type, dlk_dtype b_type, dlk_dtype c_type, std::int64_t m, std::int64_t n, std::int64_t k,
             const void *a, const void *b)
      : workspace_(kLtWorkspaceBytes) {
    integer_ = a_type == DLK_DTYPE_U8 || a_type == DLK_DTYPE_S8;
    check(cublasLtCreate(&handle_), "cublasLtCreate");
    const auto u = [](std::int64_t v) { return static_cast<uint64_t>(v); };
    cudaDataType_t x_type, y_type, d_type;
    uint64_t x_rows, x_cols, y_rows, y_cols;
    int64_t x_ld, y_ld, d_ld;
    cublasOperation_t op_x, op_y;
    const void *x, *y;
    if (integer_) {
      // cuBLASLt's int8 form: D (m x n) = A^T B with A stored k x m and B k x n
      // (K contiguous in both): its own s8 buffers, s32 D.
      own_a_ = std::make_unique<DeviceMemory>(u(m) * u(k));
      own_b_ = std::make_unique<DeviceMemory>(u(n) * u(k));
      x = own_a_->get(), y = own_b_->get();
      x_type = y_type = CUDA_R_8I, d_type = CUDA_R_32I;
      x_rows = u(k), x_cols = u(m), x_ld = k, op_x = CUBLAS_OP_T;
      y_rows = u(k), y_cols = u(n), y_ld = k, op_y = CUBLAS_OP_N;
      rows_ = m, cols_ = n, d_ld = m;
    } else {
      // Row-major C = A B is column-major C^T (n x m) = B^T A^T: dlk's buffers
      // read as they lie, B first.
      x = b, y = a;
      x_type = y_type = lt_type(b_type), d_type = lt_type(c_type);
      x_rows = u(n), x_cols = u(k), x_ld = n, op_x = CUBLAS_OP_N;
      y_rows = u(k), y_cols = u(m), y_ld = k, op_y = CUBLAS_OP_N;
      rows_ = n, cols_ = m, d_ld = n;
    }
    x_ = x, y_ = y;
    element_bytes_ = integer_ ? 4 : dlk_dtype_size(c_type);
    d_ = std::make_unique<DeviceMemory>(u(rows_) * u(cols_) * element_bytes_);
    const cublasComputeType_t compute = integer_ ? CUBLAS_COMPUTE_32I : CUBLAS_COMPUTE_32F;
    check(cublasLtMatmulDescCreate(&desc_, compute, integer_ ? CUDA_R_32I : CUDA_R_32F), "cublasLtMatmulDescCreate");
    check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &op_x, sizeof op_x), "TRANSA");
    check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &op_y, sizeof op_y), "TRANSB");
    check(cublasLtMatrixLayoutCreate(&x_layout_, x_type, x_rows, x_cols, x_ld), "cublasLtMatrixLayoutCreate");
    check(cublasLtMatrixLayoutCreate(&y_layout_, y_type, y_rows, y_cols, y_ld), "cublasLtMatrixLayoutCreate");
    check(cublasLtMatrixLayoutCreate(&d_layout_, d_type, u(rows_), u(cols_), d_ld), "cublasLtMatrixLayoutCreate");
    cublasLtMatmulPreference_t pref = nullptr;
    check(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    const uint64_t workspace = kLtWorkspaceBytes;
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace);
    cublasLtMatmulHeuristicResult_t result{};
    int returned = 0;
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(handle_, desc_, x_layout_, y_layout_, d_layout_,
                                                                 d_layout_, pref, 1, &result, &returned);
    cublasLtMatmulPreferenceDestroy(pref);
    check(status, "cublasLtMatmulAlgoGetHeuristic");
    if (returned == 0) throw std::runtime_error("cuBLASLt peer: no algorithm for this shape");
    algo_ = result.algo;
  }
  ~LtGemmPeer() override {
    if (d_layout_) cublasLtMatrixLayoutDestroy(d_layout_);
    if (y_layout_) cublasLtMatrixLayoutDestroy(y_layout_);
    if (x_layout_) cublasLtMatrixLayoutDestroy(x_layout_);
    if (desc_) cublasLtMatmulDescDestroy(desc_);
    if (handle_) cublasLtDestroy(handle_);
  }

  void run() override {
    const float one = 1.0f, zero = 0.0f;
    const int32_t one_i = 1, zero_i = 0;
    const void *alpha = integer_ ? static_cast<const void *>(&one_i) : &one;
    const void *beta = integer_ ? static_cast<const void *>(&zero_i) : &zero;
    check(cublasLtMatmul(handle_, desc_, alpha, x_, x_layout_, y_, y_layout_, beta, d_->get(), d_layout_, d_->get(),
                         d_layout_, &algo_, workspace_.get(), kLtWorkspaceBytes, stream_.get()),
          "cublasLtMatmul");
    stream_.synchronize();
  }
  std::string implementation() const override {
    return integer_ ? "cublaslt:gemm_s32 (s8 x s8, TN)" : "cublaslt:gemm_f32";
  }
  bool download_output(void *host) const override {
    if (integer_) return false;
    check(cudaMemcpy(host, d_->get(), d_->bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return true;
  }
  size_t output_bytes() const override { return d_->bytes(); }

 private:
  bool integer_ = false;
  Stream stream_;
  DeviceMemory workspace_;
  std::unique_ptr<DeviceMemory> own_a_, own_b_, d_;
  const void *x_ = nullptr, *y_ = nullptr;
  std::int64_t rows_ = 0, cols_ = 0;
  size_t element_bytes_ = 4;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t x_layout_ = nullptr, y_layout_ = nullptr, d_layout_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
};

cudnnDataType_t cudnn_type(dlk_dtype t) {
  switch (t) {
    case DLK_DTYPE_BF16: return CUDNN_DATA_BFLOAT16;
    case DLK_DTYPE_F16: return CUDNN_DATA_HALF;
    default: return CUDNN_DATA_FLOAT;
  }
}

// The first result that ran (cuDNN sorts them by time).
template <class Perf>
const Perf &fastest(const std::vector<Perf> &results, int returned) {
  for (int i = 0; i < returned; ++i)
    if (results[static_cast<size_t>(i)].status == CUDNN_STATUS_SUCCESS) return results[static_cast<size_t>(i)];
  throw std::runtime_error("cuDNN peer: no algorithm ran for this convolution");
}

class CudnnConvPeer final : public DevicePeer {
 public:
  CudnnConvPeer(const dlk_conv2d_desc &d, ConvPass pass, const void *src, const void *weights, const void *dst)
      : pass_(pass), src_(src), weights_(weights), dst_(dst) {
    const auto [oh, ow] = dlk::output_shape(d);
    const int n = static_cast<int>(d.n), c = static_cast<int>(d.c), h = static_cast<int>(d.h),
              w = static_cast<int>(d.w), k = static_cast<int>(d.k), groups = static_cast<int>(d.groups);
    const size_t element = dlk_dtype_size(d.src_type);
    const size_t src_bytes = size_t(n) * c * h * w * element, dst_bytes = size_t(n) * k * oh * ow * element,
                 weights_bytes = size_t(k) * (c / groups) * d.kh * d.kw * element;
    output_ = std::make_unique<DeviceMemory>(pass == ConvPass::forward           ? dst_bytes
                                             : pass == ConvPass::backward_data ? src_bytes
                                                                               : weights_bytes);
    const cudnnDataType_t type = cudnn_type(d.src_type);
    check(cudnnCreate(&handle_), "cudnnCreate");
    check(cudnnSetStream(handle_, stream_.get()), "cudnnSetStream");
    check(cudnnCreateTensorDescriptor(&x_), "cudnnCreateTensorDescriptor");
    check(cudnnSetTensor4dDescriptor(x_, CUDNN_TENSOR_NCHW, type, n, c, h, w), "cudnnSetTensor4dDescriptor");
    check(cudnnCreateTensorDescriptor(&y_), "cudnnCreateTensorDescriptor");
    check(cudnnSetTensor4dDescriptor(y_, CUDNN_TENSOR_NCHW, type, n, k, static_cast<int>(oh), static_cast<int>(ow)),
          "cudnnSetTensor4dDescriptor");
    check(cudnnCreateFilterDescriptor(&w_), "cudnnCreateFilterDescriptor");
    check(cudnnSetFilter4dDescriptor(w_, type, CUDNN_TENSOR_NCHW, k, c / groups, static_cast<int>(d.kh),
                                     static_cast<int>(d.kw)),
          "cudnnSetFilter4dDescriptor");
    check(cudnnCreateConvolutionDescriptor(&conv_), "cudnnCreateConvolutionDescriptor");
    check(cudnnSetConvolution2dDescriptor(conv_, static_cast<int>(d.pad_h), static_cast<int>(d.pad_w),
                                          static_cast<int>(d.stride_h), static_cast<int>(d.stride_w),
                                          static_cast<int>(d.dilation_h), static_cast<int>(d.dilation_w),
                                          CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
          "cudnnSetConvolution2dDescriptor");
    check(cudnnSetConvolutionGroupCount(conv_, groups), "cudnnSetConvolutionGroupCount");
    check(cudnnSetConvolutionMathType(conv_, d.src_type == DLK_DTYPE_F32 ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH),
          "cudnnSetConvolutionMathType");
    search(d.src_type != DLK_DTYPE_F32);
  }
  ~CudnnConvPeer() override {
    if (conv_) cudnnDestroyConvolutionDescriptor(conv_);
    if (w_) cudnnDestroyFilterDescriptor(w_);
    if (y_) cudnnDestroyTensorDescriptor(y_);
    if (x_) cudnnDestroyTensorDescriptor(x_);
    if (handle_) cudnnDestroy(handle_);
  }

  void run() override {
    const float one = 1.0f, zero = 0.0f;
    void *workspace = workspace_ ? workspace_->get() : nullptr;
    switch (pass_) {
      case ConvPass::forward:
        check(cudnnConvolutionForward(handle_, &one, x_, src_, w_, weights_, conv_,
                                      static_cast<cudnnConvolutionFwdAlgo_t>(algo_), workspace, workspace_bytes_,
                                      &zero, y_, output_->get()),
              "cudnnConvolutionForward");
        break;
      case ConvPass::backward_data:
        check(cudnnConvolutionBackwardData(handle_, &one, w_, weights_, y_, dst_, conv_,
                                           static_cast<cudnnConvolutionBwdDataAlgo_t>(algo_), workspace,
                                           workspace_bytes_, &zero, x_, output_->get()),
              "cudnnConvolutionBackwardData");
        break;
      case ConvPass::backward_weights:
        check(cudnnConvolutionBackwardFilter(handle_, &one, x_, src_, y_, dst_, conv_,
                                             static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo_), workspace,
                                             workspace_bytes_, &zero, w_, output_->get()),
              "cudnnConvolutionBackwardFilter");
        break;
    }
    stream_.synchronize();
  }
  std::string implementation() const override { return implementation_; }
  bool download_output(void *host) const override {
    check(cudaMemcpy(host, output_->get(), output_->bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return true;
  }
  size_t output_bytes() const override { return output_->bytes(); }

 private:
  // cuDNN's own search on these buffers (the output is the peer's); for 16-bit
  // types the chosen result's math type goes onto the descriptor, as dlk does.
  void search(bool half) {
    DeviceMemory search_workspace(kConvSearchWorkspaceBytes);
    int returned = 0;
    const auto take = [&](const auto &best, const char *direction) {
      algo_ = static_cast<int>(best.algo), workspace_bytes_ = best.memory;
      if (half) check(cudnnSetConvolutionMathType(conv_, best.mathType), "cudnnSetConvolutionMathType");
      implementation_ = std::string("cudnn:conv_") + direction + "_algo" + std::to_string(algo_);
    };
    switch (pass_) {
      case ConvPass::forward: {
        std::vector<cudnnConvolutionFwdAlgoPerf_t> r(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
        check(cudnnFindConvolutionForwardAlgorithmEx(handle_, x_, src_, w_, weights_, conv_, y_, output_->get(),
                                                     int(r.size()), &returned, r.data(), search_workspace.get(),
                                                     kConvSearchWorkspaceBytes),
              "cudnnFindConvolutionForwardAlgorithmEx");
        take(fastest(r, returned), "fwd");
        break;
      }
      case ConvPass::backward_data: {
        std::vector<cudnnConvolutionBwdDataAlgoPerf_t> r(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
        check(cudnnFindConvolutionBackwardDataAlgorithmEx(handle_, w_, weights_, y_, dst_, conv_, x_, output_->get(),
                                                          int(r.size()), &returned, r.data(), search_workspace.get(),
                                                          kConvSearchWorkspaceBytes),
              "cudnnFindConvolutionBackwardDataAlgorithmEx");
        take(fastest(r, returned), "bwd_data");
        break;
      }
      case ConvPass::backward_weights: {
        std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> r(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
        check(cudnnFindConvolutionBackwardFilterAlgorithmEx(handle_, x_, src_, y_, dst_, conv_, w_, output_->get(),
                                                            int(r.size()), &returned, r.data(),
                                                            search_workspace.get(), kConvSearchWorkspaceBytes),
              "cudnnFindConvolutionBackwardFilterAlgorithmEx");
        take(fastest(r, returned), "bwd_weights");
        break;
      }
    }
    if (workspace_bytes_) workspace_ = std::make_unique<DeviceMemory>(workspace_bytes_);
  }

  ConvPass pass_;
  const void *src_, *weights_, *dst_;
  Stream stream_;
  std::unique_ptr<DeviceMemory> output_, workspace_;
  cudnnHandle_t handle_ = nullptr;
  cudnnTensorDescriptor_t x_ = nullptr, y_ = nullptr;
  cudnnFilterDescriptor_t w_ = nullptr;
  cudnnConvolutionDescriptor_t conv_ = nullptr;
  int algo_ = 0;
  size_t workspace_bytes_ = 0;
  std::string implementation_;
};

}  // namespace

bool have_cuda_peers() { return true; }

std::unique_ptr<DevicePeer> make_cublaslt_gemm_peer(dlk_dtype a_type, dlk_dtype b_type, dlk_dtype c_type,
                                                    std::int64_t m, std::int64_t n, std::int64_t k, const void *a,
                                                    const void *b) {
  return std::make_unique<LtGemmPeer>(a_type, b_type, c_type, m, n, k, a, b);
}

std::unique_ptr<DevicePeer> make_cudnn_conv_peer(const dlk_conv2d_desc &desc, ConvPass pass, const void *src,
                                                 const void *weights, const void *dst) {
  return std::make_unique<CudnnConvPeer>(desc, pass, src, weights, dst);
}

}  // namespace dlk::perf
