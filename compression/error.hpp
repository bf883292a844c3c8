// Errors inside libdlk_compress are exceptions of one type, turned into a
// dlk_codec_status and a thread-local message at the C ABI (api_guard.hpp).
// compression/ may not include core/ (DESIGN.md), hence its own small copy of the
// pattern core/error.hpp follows for libdlk.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "dlk/dlk_compress.h"

namespace dlk::codec {

class Error : public std::runtime_error {
 public:
  Error(dlk_codec_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  dlk_codec_status status() const { return status_; }

 private:
  dlk_codec_status status_;
};

// "<call>: argument '<argument>' <rule>"
[[noreturn]] void throw_invalid(const char *call, const char *argument, const std::string &rule);
// "<call>: corrupt message: <what>"
[[noreturn]] void throw_corrupt(const char *call, const std::string &what);
[[noreturn]] void throw_unsupported(const char *call, const std::string &what);

// The thread's last-error message (dlk_compress_last_error).
// Joins the parts without allocating when they fit (see common/message_buffer.hpp).
void set_last_error(std::string_view message, std::string_view more = {},
                    std::string_view last = {});
const char *last_error();

}  // namespace dlk::codec
