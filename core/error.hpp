// Errors inside dlk are exceptions of one type, turned into a dlk_status and a
// thread-local message at the C ABI boundary (core/api_guard.hpp).
#pragma once

#include <stdexcept>
#include <string>

#include "dlk/dlk.h"

namespace dlk::core {

// Default visibility: a backend module throws it across the dlopen boundary and
// libdlk must catch it as the same type (hidden typeinfo would not match).
class __attribute__((visibility("default"))) Error : public std::runtime_error {
 public:
  Error(dlk_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  dlk_status status() const { return status_; }

 private:
  dlk_status status_;
};

// "<call>: argument '<argument>' <rule>" — every invalid-argument message has this
// shape, so a user (and the validation tests) find the argument by name. Inline,
// so that backend modules, which link nothing of libdlk, use the same one.
[[noreturn]] inline void throw_invalid(const char *call, const char *argument, const std::string &rule) {
  throw Error(DLK_STATUS_INVALID_ARGUMENT, std::string(call) + ": argument '" + argument + "' " + rule);
}
[[noreturn]] void throw_unsupported(const char *call, const std::string &what);
[[noreturn]] void throw_runtime(const std::string &what);

}  // namespace dlk::core
