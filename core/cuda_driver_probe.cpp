#include "core/cuda_driver_probe.hpp"

#include <dlfcn.h>

namespace dlk::core {
namespace {

// The driver API's own signatures (cuda.h), declared here so that libdlk needs
// no CUDA header to build: CUresult is an int, 0 is CUDA_SUCCESS.
using CuInitFn = int (*)(unsigned int flags);
using CuDeviceGetCountFn = int (*)(int *count);

CudaDriverProbe ask_driver() {
  // Stays loaded when found: the CUDA runtime opens the same library next.
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) {
    const char *why = dlerror();
    return {false, std::string("no NVIDIA driver: cannot load libcuda.so.1 (") +
                       (why ? why : "not found") + ")"};
  }
  auto cu_init = reinterpret_cast<CuInitFn>(dlsym(driver, "cuInit"));
  auto cu_device_get_count = reinterpret_cast<CuDeviceGetCountFn>(dlsym(driver, "cuDeviceGetCount"));
  if (!cu_init || !cu_device_get_count)
    return {false, "libcuda.so.1 lacks cuInit or cuDeviceGetCount: not an NVIDIA driver library"};
  if (const int err = cu_init(0); err != 0)
    return {false, "the NVIDIA driver's cuInit failed with CUresult " + std::to_string(err) +
                       (err == 100 ? " (CUDA_ERROR_NO_DEVICE: no CUDA device)" : "")};
  int count = 0;
  if (cu_device_get_count(&count) != 0 || count == 0)
    return {false, "the NVIDIA driver reports no CUDA device"};
  return {true, ""};
}

}  // namespace

const CudaDriverProbe &probe_cuda_driver() {
  static const CudaDriverProbe probe = ask_driver();
  return probe;
}

}  // namespace dlk::core
