// Stands in for core/cuda_driver_probe.cpp in the fake-module and fake-machine
// tests: a machine whose NVIDIA driver answers and has a device, so that what
// happens next (the module beside the program, or none) is what they test,
// whether or not this host has a GPU.
#include "core/cuda_driver_probe.hpp"

namespace dlk::core {

const CudaDriverProbe &probe_cuda_driver() {
  static const CudaDriverProbe probe{true, ""};
  return probe;
}

}  // namespace dlk::core
