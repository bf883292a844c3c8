#include "backends/cpu_avx512/cpu_backend.hpp"

#include <cstdlib>
#include <cstring>

#include "backends/cpu_avx512/conv2d_packed_weights.hpp"
#include "backends/cpu_avx512/cpu_ops.hpp"
#include "backends/cpu_avx512/cpu_peak.hpp"
#include "backends/cpu_avx512/gemm_driver.hpp"

namespace dlk::cpu {

CpuBackend::CpuBackend(const core::BackendConfig &config) : config_(config) {}

CpuBackend::~CpuBackend() {
  // Memory the caller forgot to free goes with the context, as cudaFree does on reset.
  for (auto &entry : allocations_) std::free(const_cast<void *>(entry.first));
}

core::DeviceInfo CpuBackend::info() const {
  const core::CpuFeatures &f = core::cpu_features();
  core::DeviceInfo d;
  d.device = f.model;
  d.isa = core::cpu_isa_name(config_.cpu_isa);
  const double per_cycle_f32 = fp32_flops_per_cycle(f, config_.cpu_isa);
  // vdpbf16ps does two f32 multiply-adds per lane, vpdpbusd four int8 ones
  // (vpmaddwd on AVX2: two); bf16 runs vdpbf16ps only where it outpaces the FMAs,
  // and AMX tiles where the CPU has them (tdpbf16ps: 1024 FLOP a cycle, 16 times
  // two 512-bit FMA pipes).
  const bool avx512 = config_.cpu_isa == core::CpuIsa::avx512;
  const double bf16_factor = gemm_runs_bf16_on_amx(config_.cpu_isa)        ? 16
                             : avx512 && bf16_dot_outpaces_fma(f) ? 2
                                                                   : 1;
  const double int8_factor = avx512 && f.avx512_vnni ? 4
                             : config_.cpu_isa != core::CpuIsa::scalar             ? 2
                                                                                   : 1;
  const double cycles = f.nominal_hz * config_.num_threads;
  d.peak_f32_flops = per_cycle_f32 * cycles;
  d.peak_f16_flops = per_cycle_f32 * cycles;  // converted to f32 while packing
  d.peak_bf16_flops = per_cycle_f32 * bf16_factor * cycles;
  d.peak_int8_ops = per_cycle_f32 * int8_factor * cycles;
  d.memory_bandwidth = 0;  // no datasheet figure to read: dlk-perf measures it
  return d;
}

bool CpuBackend::supports(dlk_op, dlk_dtype, dlk_dtype, dlk_dtype) const {
  // The reference implementations cover every combination core validates.
  return true;
}

void *CpuBackend::allocate(size_t bytes) {
  const size_t rounded = (bytes + 63) / 64 * 64;
  void *p = std::aligned_alloc(64, rounded);
  if (!p) throw core::Error(DLK_STATUS_OUT_OF_MEMORY, "dlk_malloc: cannot allocate " +
                                                          std::to_string(bytes) + " bytes");
  std::lock_guard<std::mutex> lock(allocations_mutex_);
  allocations_[p] = bytes;
  return p;
}

void CpuBackend::deallocate(void *ptr) {
  {
    std::lock_guard<std::mutex> lock(allocations_mutex_);
    allocations_.erase(ptr);
  }
  std::free(ptr);
}

bool CpuBackend::owns(const void *ptr) const {
  std::lock_guard<std::mutex> lock(allocations_mutex_);
  return allocations_.count(ptr) != 0;
}

void CpuBackend::copy(void *dst, const void *src, size_t bytes, dlk_copy_kind) {
  std::memcpy(dst, src, bytes);
}

core::OpResult CpuBackend::gemm(const core::GemmArgs &args) {
  return {gemm_strided(args, config_.cpu_isa, config_.num_threads, nullptr, config_.cpu_gemm), 0};
}
core::OpResult CpuBackend::conv2d_forward(const core::Conv2dArgs &args) {
  return conv2d_forward_packed(args, nullptr);
}
std::unique_ptr<core::PackedConv2dWeights> CpuBackend::conv2d_pack_weights(
    const core::Conv2dArgs &args) {
  return cpu::conv2d_pack_weights(args, config_.cpu_isa, config_.num_threads);
}
core::OpResult CpuBackend::conv2d_forward_packed(const core::Conv2dArgs &args,
                                                 const core::PackedConv2dWeights *packed) {
  std::lock_guard<std::mutex> lock(scratch_mutex_);
  if (depthwise_direct_applies(args, config_.cpu_isa))
    return conv2d_forward_depthwise(args, config_.cpu_isa, config_.num_threads, scratch_);
  return conv2d_forward_im2col(args, config_.cpu_isa, config_.num_threads, scratch_,
                               prepacked_weights(packed));
}
core::OpResult CpuBackend::conv2d_backward_data(const core::Conv2dArgs &args) {
  return conv2d_backward_data_packed(args, nullptr);
}
std::unique_ptr<core::PackedConv2dWeights> CpuBackend::conv2d_pack_backward_data_weights(
    const core::Conv2dArgs &args) {
  return cpu::conv2d_pack_backward_data_weights(args, config_.cpu_isa, config_.num_threads);
}
core::OpResult CpuBackend::conv2d_backward_data_packed(const core::Conv2dArgs &args,
                                                       const core::PackedConv2dWeights *packed) {
  std::lock_guard<std::mutex> lock(scratch_mutex_);
  return cpu::conv2d_backward_data(args, config_.cpu_isa, config_.num_threads, scratch_,
                                   prepacked_weights(packed));
}
core::OpResult CpuBackend::conv2d_backward_weights(const core::Conv2dArgs &args) {
  std::lock_guard<std::mutex> lock(scratch_mutex_);
  return cpu::conv2d_backward_weights(args, config_.cpu_isa, config_.num_threads, scratch_);
}
core::OpResult CpuBackend::pool2d_forward(const core::Pool2dArgs &args) {
  return cpu::pool2d_forward(args, config_.num_threads, config_.cpu_isa);
}
core::OpResult CpuBackend::pool2d_backward(const core::Pool2dArgs &args) {
  std::lock_guard<std::mutex> lock(scratch_mutex_);
  return cpu::pool2d_backward(args, config_.num_threads, config_.cpu_isa, scratch_);
}

}  // namespace dlk::cpu

namespace dlk::core {
std::unique_ptr<Backend> make_cpu_backend(const BackendConfig &config) {
  return std::make_unique<cpu::CpuBackend>(config);
}
}  // namespace dlk::core
