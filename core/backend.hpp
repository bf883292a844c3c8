// The backend interface: the one header a backend includes from core. A backend
// is one object per device; core validates every argument before calling it, times
// the call and prints the verbose line, so a backend only computes.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "core/cpu_features.hpp"
#include "core/error.hpp"
#include "core/numeric.hpp"
#include "core/op_args.hpp"
#include "dlk/dlk.h"
#include "dlk/dlk_compress.h"

namespace dlk::core {

enum class CpuIsa { scalar = 0, avx2 = 1, avx512 = 2 };
const char *cpu_isa_name(CpuIsa isa);
// Which loops the CPU backend's f32 dlk_gemm runs: the rule's choice, or one
// path forced (DLK_CPU_GEMM), to measure and test each on any shape.
enum class CpuGemmPath { rule, blocked, unpacked };

// The context's resolved configuration (code over environment over default).
struct BackendConfig {
  CpuIsa cpu_isa = CpuIsa::scalar;  // the ISA tier to run; the CPU has it (checked by core)
  int num_threads = 1;
  int verbose = 0;
  std::string fpga_sim_config;  // empty: built-in
  int device = 0;
  void *stream = nullptr;
  bool allow_tf32 = false;  // cuda: f32 GEMM/conv may use TF32 tensor cores (opt-in)
  bool cuda_conv_im2col = false;  // cuda: float conv2d forward by dlk's im2col + cuBLASLt, not cuDNN
  bool cuda_deterministic = true;  // cuda: cuDNN algorithms by heuristic, deterministic ones only
  CpuGemmPath cpu_gemm = CpuGemmPath::rule;  // cpu: f32 dlk_gemm blocked, unpacked or by the rule
};

struct DeviceInfo {
  std::string device;
  std::string isa;
  double peak_f32_flops = 0, peak_f16_flops = 0, peak_bf16_flops = 0, peak_int8_ops = 0;
  double memory_bandwidth = 0;
};

// What the backend reports back about one op: the implementation that ran
// (names the ISA and kernel, as oneDNN's verbose does) and, for a simulator,
// the simulated cycles; a simulator fills `sim` too (struct_size 0: no record).
struct OpResult {
  std::string implementation;
  double sim_cycles = 0;
  dlk_sim_record sim{};
};

// A codec run on the backend's device (include/dlk/dlk_device_codec.h): core has
// validated the parameters, the buffers (require_codec_memory included) and, for
// a decode, the whole message but for topk's index order. Core makes the 32-byte
// header and checks a received one, so a backend writes the header core gives it
// and otherwise writes or reads only the payload, 32 bytes into the message.
struct CodecEncodeArgs {
  const dlk_codec_params &params;  // validated for count
  const float *input;
  float *residual;  // nullptr: no error feedback
  uint64_t count;
  const uint8_t *header;  // host memory: the 32 bytes to put first in the message
  void *message;          // room for the header and the payload size core computed
};

struct CodecDecodeArgs {
  const char *call;  // for the error of a topk message whose indices are out of order
  dlk_codec_algorithm algorithm;
  uint32_t block_size;  // onebit, int8, int4
  uint64_t count;
  const void *payload;
  uint64_t payload_size;
  float *output;
  bool accumulate;  // output[i] += decoded[i], else output[i] = decoded[i]
};

// A backend's own layout of one convolution's weights (dlk_conv2d_weights_create),
// packed once for the kernel of one pass to read instead of packing on every call.
class PackedConv2dWeights {
 public:
  virtual ~PackedConv2dWeights() = default;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual const char *name() const = 0;
  virtual DeviceInfo info() const = 0;
  // Asked only for type signatures the API defines (core/op_types.hpp).
  virtual bool supports(dlk_op op, dlk_dtype a, dlk_dtype b, dlk_dtype c) const = 0;

  // Memory. Errors are thrown as dlk::core::Error.
  virtual void *allocate(size_t bytes) = 0;
  virtual void deallocate(void *ptr) = 0;
  // Whether ptr came from allocate() on this backend and is still live.
  virtual bool owns(const void *ptr) const = 0;
  virtual void copy(void *dst, const void *src, size_t bytes, dlk_copy_kind kind) = 0;
  virtual void synchronize() = 0;

  // Ops. Called only for (op, types) where supports() is true.
  virtual OpResult gemm(const GemmArgs &args) = 0;
  virtual OpResult conv2d_forward(const Conv2dArgs &args) = 0;
  virtual OpResult conv2d_backward_data(const Conv2dArgs &args) = 0;
  virtual OpResult conv2d_backward_weights(const Conv2dArgs &args) = 0;
  // The weights (args.weights, validated with args.desc for the forward) packed
  // for conv2d_forward_packed; nullptr where the backend has no layout of its own
  // for this convolution, which then runs as conv2d_forward does.
  virtual std::unique_ptr<PackedConv2dWeights> conv2d_pack_weights(const Conv2dArgs & /*args*/) {
    return nullptr;
  }
  // The forward with args.weights the weights as given and `packed` what
  // conv2d_pack_weights made of them for a desc equal to args.desc but for n and
  // scales (nullptr: none); the result must equal conv2d_forward's.
  virtual OpResult conv2d_forward_packed(const Conv2dArgs &args,
                                         const PackedConv2dWeights * /*packed*/) {
    return conv2d_forward(args);
  }
  // The same pair for backward data: the weights (validated with args.desc for
  // backward data) packed for conv2d_backward_data_packed, whose result must
  // equal conv2d_backward_data's.
  virtual std::unique_ptr<PackedConv2dWeights> conv2d_pack_backward_data_weights(
      const Conv2dArgs & /*args*/) {
    return nullptr;
  }
  virtual OpResult conv2d_backward_data_packed(const Conv2dArgs &args,
                                               const PackedConv2dWeights * /*packed*/) {
    return conv2d_backward_data(args);
  }
  virtual OpResult pool2d_forward(const Pool2dArgs &args) = 0;
  virtual OpResult pool2d_backward(const Pool2dArgs &args) = 0;

  // Codecs on the device: optional. A backend that keeps its memory on the host
  // leaves these, and callers use libdlk_compress on that memory directly.
  virtual bool supports_codec(const dlk_codec_params & /*params*/) const { return false; }
  // Throws an invalid-argument Error naming `argument` when ptr is not memory
  // this backend's device can address (called only when supports_codec is true).
  virtual void require_codec_memory(const char * /*call*/, const char * /*argument*/,
                                    const void * /*ptr*/) const {}
  // Writes the payload; returns its size in bytes (sampled topk may write less
  // than the most core made room for).
  virtual uint64_t codec_encode(const CodecEncodeArgs & /*args*/) {
    throw Error(DLK_STATUS_UNSUPPORTED, std::string(name()) + ": no codecs on this backend");
  }
  virtual void codec_decode(const CodecDecodeArgs & /*args*/) {
    throw Error(DLK_STATUS_UNSUPPORTED, std::string(name()) + ": no codecs on this backend");
  }
};

// True in a process made by fork() from one that had loaded libdlk: the parent's
// thread pools (OpenMP's included) have no threads there, so a backend must not
// wait on them; the CPU backend runs on the calling thread alone.
bool in_forked_child();

// Backends built into libdlk define these; core's registry is the only caller.
std::unique_ptr<Backend> make_cpu_backend(const BackendConfig &config);
std::unique_ptr<Backend> make_fpga_sim_backend(const BackendConfig &config);

// The backend that computes on the host CPU, for a simulator to get its values
// from without knowing any other backend (core's registry decides which it is).
std::unique_ptr<Backend> make_host_compute_backend(const BackendConfig &config);

// A backend built as a separate module (libdlk_<name>.so) exports this C symbol,
// which core finds with dlsym after dlopen. api_version guards against a module
// built from another dlk. On refusal it returns NULL with *status and error set.
#define DLK_BACKEND_MODULE_API_VERSION 5
#define DLK_BACKEND_MODULE_ENTRY "dlk_backend_module_create"
using BackendModuleCreateFn = Backend *(*)(int api_version, const BackendConfig *config,
                                           dlk_status *status, char *error, size_t error_size);

}  // namespace dlk::core
