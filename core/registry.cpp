#include "core/registry.hpp"

#include "core/cuda_driver_probe.hpp"
#include "core/module_loader.hpp"

namespace dlk::core {
namespace {

struct BackendEntry {
  const char *name;
  std::unique_ptr<Backend> (*create)(const BackendConfig &);
};

// The driver is asked first: without it, loading the module (CUDA runtime, cuBLAS,
// cuDNN) would only cost time before failing.
std::unique_ptr<Backend> create_cuda(const BackendConfig &config) {
  const CudaDriverProbe &driver = probe_cuda_driver();
  if (!driver.usable) throw Error(DLK_STATUS_BACKEND_UNAVAILABLE, "backend 'cuda': " + driver.why_not);
  return load_backend_module("cuda", config);
}

std::unique_ptr<Backend> create_fpga_sim(const BackendConfig &config) {
  try {
    return make_fpga_sim_backend(config);
  } catch (const Error &e) {
    // A bad accelerator description: the message names the file and the key.
    if (e.status() != DLK_STATUS_INVALID_ARGUMENT) throw;
    throw Error(e.status(), std::string("dlk_context_create: ") + e.what());
  }
}

// In the order auto tries them.
const BackendEntry kBackends[] = {
    {"cuda", create_cuda},
    {"cpu", make_cpu_backend},
    {"fpga_sim", create_fpga_sim},
};

}  // namespace

std::unique_ptr<Backend> make_host_compute_backend(const BackendConfig &config) {
  return make_cpu_backend(config);
}

std::unique_ptr<Backend> create_backend(const std::string &name, const BackendConfig &config,
                                        std::vector<std::string> &decisions) {
  if (name != "auto") {
    for (const auto &entry : kBackends)
      if (name == entry.name) return entry.create(config);
    throw Error(DLK_STATUS_INVALID_ARGUMENT, "unknown backend '" + name + "'");
  }
  try {
    auto cuda = create_cuda(config);
    decisions.push_back("backend: auto chose cuda");
    return cuda;
  } catch (const Error &e) {
    decisions.push_back(std::string("backend: auto skipped cuda (") + e.what() + "), chose cpu");
  }
  return make_cpu_backend(config);
}

}  // namespace dlk::core
