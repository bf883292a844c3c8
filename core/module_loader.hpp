// Loads a backend built as its own shared module (libdlk_cuda.so.<abi>), so that
// libdlk never links a vendor runtime and runs where that runtime is missing.
#pragma once

#include <memory>
#include <string>

#include "core/backend.hpp"

namespace dlk::core {

// Looks next to libdlk first, then on the loader's search path. Throws
// Error(DLK_STATUS_BACKEND_UNAVAILABLE) saying why when the module cannot be
// loaded or declines (no device, driver too old).
std::unique_ptr<Backend> load_backend_module(const std::string &name, const BackendConfig &config);

}  // namespace dlk::core
