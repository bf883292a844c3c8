#include "backends/cuda/cuda_backend.hpp"

#include <string>

#include "backends/cuda/codec_device.hpp"
#include "backends/cuda/conv_im2col.hpp"
#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/device_ceilings.hpp"
#include "backends/cuda/device_pointer.hpp"
#include "backends/cuda/pool2d_cuda.hpp"

namespace dlk::cuda {
namespace {

bool is_float_conv(dlk_dtype a, dlk_dtype b, dlk_dtype c) {
  return (a == DLK_DTYPE_F32 || a == DLK_DTYPE_F16 || a == DLK_DTYPE_BF16) && b == a && c == a;
}

constexpr bool have_cudnn() {
#ifdef DLK_CUDA_HAVE_CUDNN
  return true;
#else
  return false;
#endif
}

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  if (cudaDeviceGetAttribute(&value, attr, device) == cudaSuccess) return value;
  cudaGetLastError();  // leave no error behind for the next call to find
  return 0;
}

}  // namespace

CudaBackend::CudaBackend(const core::BackendConfig &config)
    : device_(config.device),
      allow_tf32_(config.allow_tf32),
      conv_im2col_(config.cuda_conv_im2col),
      deterministic_(config.cuda_deterministic) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    throw core::Error(DLK_STATUS_BACKEND_UNAVAILABLE,
                      std::string("no usable CUDA device: ") + cudaGetErrorString(err) + " (driver supports CUDA " +
                          std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10) +
                          ", this module needs " + std::to_string(runtime / 1000) + "." +
                          std::to_string(runtime % 1000 / 10) + ")");
  }
  if (count == 0) throw core::Error(DLK_STATUS_BACKEND_UNAVAILABLE, "no CUDA device found");
  if (device_ >= count)
    throw core::Error(DLK_STATUS_INVALID_ARGUMENT,
                      "dlk_context_create: argument 'options->device' is " + std::to_string(device_) +
                          "; this machine has " + std::to_string(count) + " CUDA device(s)");
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  if (config.stream) {
    stream_ = static_cast<cudaStream_t>(config.stream);
  } else {
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    owns_stream_ = true;
  }
  gemm_ = std::make_unique<LtGemm>(stream_, allow_tf32_);
  flag_ = std::make_unique<DeviceScratch>(stream_);
  columns_ = std::make_unique<DeviceScratch>(stream_);
}

CudaBackend::~CudaBackend() {
  cudaSetDevice(device_);
  cudaStreamSynchronize(stream_);
  gemm_.reset();
#ifdef DLK_CUDA_HAVE_CUDNN
  conv_.reset();
#endif
  for (const void *p : allocations_) cudaFree(const_cast<void *>(p));
  if (owns_stream_) cudaStreamDestroy(stream_);
}

core::DeviceInfo CudaBackend::info() const {
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
  DeviceProperties p;
  p.name = prop.name;
  p.major = prop.major;
  p.minor = prop.minor;
  p.sm_count = prop.multiProcessorCount;
  p.clock_hz = attribute(cudaDevAttrClockRate, device_) * 1e3;
  p.memory_clock_hz = attribute(cudaDevAttrMemoryClockRate, device_) * 1e3;
  p.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device_);
  return device_info(p, allow_tf32_);
}

bool CudaBackend::supports(dlk_op op, dlk_dtype a, dlk_dtype b, dlk_dtype c) const {
  switch (op) {
    case DLK_OP_GEMM: return lt_gemm_supports(a, b, c);
    // Float types (core asks only for src = weights = dst there); int8 forward
    // is not on the GPU yet. Backward needs cuDNN; forward has dlk's im2col too.
    case DLK_OP_CONV2D_FORWARD:
      return is_float_conv(a, b, c) && (have_cudnn() || conv_im2col_);
    case DLK_OP_CONV2D_BACKWARD_DATA:
    case DLK_OP_CONV2D_BACKWARD_WEIGHTS:
      return is_float_conv(a, b, c) && have_cudnn();
    // Every type core defines for pooling (f32, f16, bf16; int8 forward).
    case DLK_OP_POOL2D_FORWARD:
    case DLK_OP_POOL2D_BACKWARD: return true;
    default: return false;
  }
}

void *CudaBackend::allocate(size_t bytes) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  void *p = nullptr;
  check_cuda(cudaMalloc(&p, bytes), "cudaMalloc");
  std::lock_guard<std::mutex> lock(allocations_mutex_);
  allocations_.insert(p);
  return p;
}

void CudaBackend::deallocate(void *ptr) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  // The stream may still use the memory: cudaFree waits for the device.
  check_cuda(cudaFree(ptr), "cudaFree");
  std::lock_guard<std::mutex> lock(allocations_mutex_);
  allocations_.erase(ptr);
}

bool CudaBackend::owns(const void *ptr) const {
  std::lock_guard<std::mutex> lock(allocations_mutex_);
  return allocations_.count(ptr) != 0;
}

void CudaBackend::copy(void *dst, const void *src, size_t bytes, dlk_copy_kind kind) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  const cudaMemcpyKind k = kind == DLK_COPY_HOST_TO_DEVICE   ? cudaMemcpyHostToDevice
                           : kind == DLK_COPY_DEVICE_TO_HOST ? cudaMemcpyDeviceToHost
                                                             : cudaMemcpyDeviceToDevice;
  check_cuda(cudaMemcpyAsync(dst, src, bytes, k, stream_), "cudaMemcpyAsync");
  // Host memory may be reused or read as soon as dlk_memcpy returns.
  if (kind != DLK_COPY_DEVICE_TO_DEVICE) synchronize();
}

void CudaBackend::synchronize() {
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

core::OpResult CudaBackend::gemm(const core::GemmArgs &g) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  // Core passes NULL operands where nothing is read or written (an empty C, K = 0).
  const bool writes_c = g.m > 0 && g.n > 0 && g.batch > 0;
  if (writes_c && g.k > 0) {
    require_device_pointer("dlk_gemm", "a", g.a.ptr, device_);
    require_device_pointer("dlk_gemm", "b", g.b.ptr, device_);
  }
  if (writes_c) require_device_pointer("dlk_gemm", "c", g.c, device_);
  return gemm_->run(g);
}

// n = 0 is the only empty shape validation allows: nothing to read.
core::OpResult CudaBackend::conv2d_forward(const core::Conv2dArgs &a) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  if (a.desc.n == 0) return {"cuda:conv_empty", 0};
  require_device_pointer("dlk_conv2d_forward", "src", a.src, device_);
  require_device_pointer("dlk_conv2d_forward", "weights", a.weights, device_);
  require_device_pointer("dlk_conv2d_forward", "dst", a.dst, device_);
  if (a.bias) require_device_pointer("dlk_conv2d_forward", "bias", a.bias, device_);
  if (conv_im2col_ || forward_needs_f32_product(a)) return conv2d_forward_im2col(a, *gemm_, *columns_, stream_);
#ifdef DLK_CUDA_HAVE_CUDNN
  return conv().forward(a);
#else
  throw core::Error(DLK_STATUS_UNSUPPORTED, "cuda: conv2d on cuDNN, which this build lacks (DLK_CUDA_CONV=im2col runs without it)");
#endif
}

#ifdef DLK_CUDA_HAVE_CUDNN
CudnnConv &CudaBackend::conv() {
  std::lock_guard<std::mutex> lock(conv_mutex_);
  if (!conv_) conv_ = std::make_unique<CudnnConv>(stream_, allow_tf32_, deterministic_);
  return *conv_;
}

core::OpResult CudaBackend::conv2d_backward_data(const core::Conv2dArgs &a) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  if (a.desc.n == 0) return {"cuda:conv_empty", 0};
  require_device_pointer("dlk_conv2d_backward_data", "diff_dst", a.diff_dst, device_);
  require_device_pointer("dlk_conv2d_backward_data", "weights", a.weights, device_);
  require_device_pointer("dlk_conv2d_backward_data", "diff_src", a.diff_src, device_);
  return conv().backward_data(a);
}

core::OpResult CudaBackend::conv2d_backward_weights(const core::Conv2dArgs &a) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  require_device_pointer("dlk_conv2d_backward_weights", "diff_weights", a.diff_weights, device_);
  if (a.diff_bias) require_device_pointer("dlk_conv2d_backward_weights", "diff_bias", a.diff_bias, device_);
  if (a.desc.n == 0) {  // no images: zero gradients
    const size_t weights = static_cast<size_t>(a.desc.k * a.c_per_group * a.desc.kh * a.desc.kw);
    const size_t element = a.desc.weights_type == DLK_DTYPE_F32 ? 4 : 2;
    check_cuda(cudaMemsetAsync(a.diff_weights, 0, weights * element, stream_), "cudaMemsetAsync");
    if (a.diff_bias)
      check_cuda(cudaMemsetAsync(a.diff_bias, 0, static_cast<size_t>(a.desc.k) * sizeof(float), stream_),
                 "cudaMemsetAsync");
    return {"cuda:conv_empty", 0};
  }
  require_device_pointer("dlk_conv2d_backward_weights", "src", a.src, device_);
  require_device_pointer("dlk_conv2d_backward_weights", "diff_dst", a.diff_dst, device_);
  return conv().backward_weights(a);
}
#else
// Built without cuDNN: supports() keeps core from calling these.
core::OpResult CudaBackend::conv2d_backward_data(const core::Conv2dArgs &) {
  throw core::Error(DLK_STATUS_UNSUPPORTED, "cuda: conv2d needs cuDNN, which this build lacks");
}
core::OpResult CudaBackend::conv2d_backward_weights(const core::Conv2dArgs &) {
  throw core::Error(DLK_STATUS_UNSUPPORTED, "cuda: conv2d needs cuDNN, which this build lacks");
}
#endif

core::OpResult CudaBackend::pool2d_forward(const core::Pool2dArgs &a) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  if (a.desc.n * a.desc.c * a.oh * a.ow > 0) {
    require_device_pointer("dlk_pool2d_forward", "src", a.src, device_);
    require_device_pointer("dlk_pool2d_forward", "dst", a.dst, device_);
    if (a.argmax) require_device_pointer("dlk_pool2d_forward", "argmax", a.argmax, device_);
  }
  pool2d_forward_cuda(a, stream_);
  return {a.desc.kind == DLK_POOL_MAX ? "cuda:pool_max" : "cuda:pool_avg", 0};
}

core::OpResult CudaBackend::pool2d_backward(const core::Pool2dArgs &a) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  if (a.desc.n * a.desc.c * a.desc.h * a.desc.w > 0) {
    require_device_pointer("dlk_pool2d_backward", "diff_src", a.diff_src, device_);
    if (a.oh * a.ow > 0) {
      require_device_pointer("dlk_pool2d_backward", "diff_dst", a.diff_dst, device_);
      if (a.desc.kind == DLK_POOL_MAX)
        require_device_pointer("dlk_pool2d_backward", "argmax", a.argmax_in, device_);
    }
  }
  pool2d_backward_cuda(a, static_cast<int *>(flag_->get(sizeof(int))), stream_);
  return {a.desc.kind == DLK_POOL_MAX ? "cuda:pool_max" : "cuda:pool_avg", 0};
}

bool CudaBackend::supports_codec(const dlk_codec_params &params) const { return device_codec_supports(params); }

void CudaBackend::require_codec_memory(const char *call, const char *argument, const void *ptr) const {
  require_device_pointer(call, argument, ptr, device_);
}

uint64_t CudaBackend::codec_encode(const core::CodecEncodeArgs &args) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  return device_codec_encode(args, stream_);
}

void CudaBackend::codec_decode(const core::CodecDecodeArgs &args) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  device_codec_decode(args, stream_);
}

}  // namespace dlk::cuda
