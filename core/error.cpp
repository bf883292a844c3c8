#include "core/error.hpp"

namespace dlk::core {

void throw_unsupported(const char *call, const std::string &what) {
  throw Error(DLK_STATUS_UNSUPPORTED, std::string(call) + ": " + what);
}

void throw_runtime(const std::string &what) { throw Error(DLK_STATUS_RUNTIME_ERROR, what); }

}  // namespace dlk::core
