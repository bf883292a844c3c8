// Whether an NVIDIA driver with a device is present, asked of the driver library
// itself (libcuda.so.1) before the CUDA module is loaded: loading the module maps
// the CUDA runtime, cuBLAS and cuDNN, which costs a process about half a second,
// and a machine without the driver can answer "no" for the price of one dlopen.
#pragma once

#include <string>

namespace dlk::core {

struct CudaDriverProbe {
  bool usable = false;
  std::string why_not;  // empty when usable
};

// Asked once per process (the driver does not come and go while it runs); only
// the registry calls it, and only for DLK_BACKEND=cuda or auto.
const CudaDriverProbe &probe_cuda_driver();

}  // namespace dlk::core
