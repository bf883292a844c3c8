// Every environment variable core reads is declared once here, with its valid
// values and default (like NCCL's parameter table). A context's configuration is
// resolved from code first, then the environment, then the default.
#pragma once

#include <string>
#include <vector>

#include "core/backend.hpp"
#include "dlk/dlk.h"

namespace dlk::core {

struct EnvVar {
  const char *name;
  const char *values;  // for messages and docs
  const char *default_value;
  const char *meaning;
};

const std::vector<EnvVar> &env_vars();

struct ContextConfig {
  std::string backend;  // auto, cpu, cuda, fpga_sim
  BackendConfig backend_config;
  std::vector<std::string> decisions;  // printed at DLK_VERBOSE=2
};

// Throws Error(DLK_STATUS_INVALID_ARGUMENT) naming the variable or option and
// listing the valid values when either holds an unknown value.
ContextConfig resolve_context_config(const dlk_context_options *options);

}  // namespace dlk::core
