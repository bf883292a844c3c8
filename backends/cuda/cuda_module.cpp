// The module's one exported symbol: core's loader calls it after dlopen. No
// exception leaves it; a refusal (no device, wrong API version) comes back as text.
#include <cstdio>
#include <exception>

#include "backends/cuda/cuda_backend.hpp"

extern "C" __attribute__((visibility("default"))) dlk::core::Backend *dlk_backend_module_create(
    int api_version, const dlk::core::BackendConfig *config, dlk_status *status, char *error,
    size_t error_size) {
  *status = DLK_STATUS_BACKEND_UNAVAILABLE;
  if (api_version != DLK_BACKEND_MODULE_API_VERSION) {
    std::snprintf(error, error_size, "module API version %d, libdlk asks for %d",
                  DLK_BACKEND_MODULE_API_VERSION, api_version);
    return nullptr;
  }
  try {
    return new dlk::cuda::CudaBackend(*config);
  } catch (const dlk::core::Error &e) {
    *status = e.status();
    std::snprintf(error, error_size, "%s", e.what());
    return nullptr;
  } catch (const std::exception &e) {
    std::snprintf(error, error_size, "%s", e.what());
    return nullptr;
  }
}
