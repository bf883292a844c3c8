// The one place that knows which backends exist and how each is created.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"

namespace dlk::core {

// name: cpu, cuda, fpga_sim, or auto (cuda when usable, else cpu). Appends what
// it tried to `decisions`; throws Error(DLK_STATUS_BACKEND_UNAVAILABLE) when the
// backend cannot run here.
std::unique_ptr<Backend> create_backend(const std::string &name, const BackendConfig &config,
                                        std::vector<std::string> &decisions);

}  // namespace dlk::core
