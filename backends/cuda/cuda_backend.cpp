#include "backends/cuda/cuda_backend.hpp"

#include <string>

#include "backends/cuda/cuda_check.hpp"

namespace dlk::cuda {
namespace {

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  return cudaDeviceGetAttribute(&value, attr, device) == cudaSuccess ? value : 0;
}

// FP32 lanes per SM by compute capability (the CUDA C Programming Guide's
// throughput table); 0 for an architecture this build does not know.
int fp32_lanes_per_sm(int major, int minor) {
  if (major == 7 || (major == 8 && minor == 0)) return 64;
  if (major >= 8) return 128;
  return 0;
}

}  // namespace

CudaBackend::CudaBackend(const core::BackendConfig &config) : device_(config.device) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess)
    throw core::Error(DLK_STATUS_BACKEND_UNAVAILABLE,
                      std::string("no usable CUDA device: ") + cudaGetErrorString(err));
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
  check_cublas(cublasCreate(&cublas_), "cublasCreate");
  check_cublas(cublasSetStream(cublas_, stream_), "cublasSetStream");
}

CudaBackend::~CudaBackend() {
  cudaSetDevice(device_);
  cudaStreamSynchronize(stream_);
  for (const void *p : allocations_) cudaFree(const_cast<void *>(p));
  if (cublas_) cublasDestroy(cublas_);
  if (owns_stream_) cudaStreamDestroy(stream_);
}

core::DeviceInfo CudaBackend::info() const {
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
  core::DeviceInfo d;
  d.device = prop.name;
  d.isa = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  const double clock_hz = attribute(cudaDevAttrClockRate, device_) * 1e3;
  d.peak_f32_flops = 2.0 * fp32_lanes_per_sm(prop.major, prop.minor) * prop.multiProcessorCount * clock_hz;
  // Tensor-core peaks differ by SKU and are not queryable: dlk-perf measures them.
  const double memory_hz = attribute(cudaDevAttrMemoryClockRate, device_) * 1e3;
  d.memory_bandwidth = 2.0 * memory_hz * attribute(cudaDevAttrGlobalMemoryBusWidth, device_) / 8.0;
  return d;
}

bool CudaBackend::supports(dlk_op op, dlk_dtype a, dlk_dtype b, dlk_dtype c) const {
  return op == DLK_OP_GEMM && cublas_gemm_supports(a, b, c);
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

core::OpResult CudaBackend::gemm(const core::GemmArgs &args) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  return cublas_gemm(cublas_, args);
}

// supports() keeps core from calling these; they answer like it, should a future
// caller skip that check.
core::OpResult CudaBackend::conv2d_forward(const core::Conv2dArgs &) {
  throw core::Error(DLK_STATUS_UNSUPPORTED, "cuda: conv2d_forward is not implemented yet");
}
core::OpResult CudaBackend::conv2d_backward_data(const core::Conv2dArgs &) {
  throw core::Error(DLK_STATUS_UNSUPPORTED, "cuda: conv2d_backward_data is not implemented yet");
}
core::OpResult CudaBackend::conv2d_backward_weights(const core::Conv2dArgs &) {
  throw core::Error(DLK_STATUS_UNSUPPORTED, "cuda: conv2d_backward_weights is not implemented yet");
}
core::OpResult CudaBackend::pool2d_forward(const core::Pool2dArgs &) {
  throw core::Error(DLK_STATUS_UNSUPPORTED, "cuda: pool2d_forward is not implemented yet");
}
core::OpResult CudaBackend::pool2d_backward(const core::Pool2dArgs &) {
  throw core::Error(DLK_STATUS_UNSUPPORTED, "cuda: pool2d_backward is not implemented yet");
}

}  // namespace dlk::cuda
