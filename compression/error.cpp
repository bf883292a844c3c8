#include "compression/error.hpp"

#include "common/message_buffer.hpp"

namespace dlk::codec {

void throw_invalid(const char *call, const char *argument, const std::string &rule) {
  throw Error(DLK_CODEC_INVALID_ARGUMENT,
              std::string(call) + ": argument '" + argument + "' " + rule);
}

void throw_corrupt(const char *call, const std::string &what) {
  throw Error(DLK_CODEC_CORRUPT_MESSAGE, std::string(call) + ": corrupt message: " + what);
}

void throw_unsupported(const char *call, const std::string &what) {
  throw Error(DLK_CODEC_UNSUPPORTED, std::string(call) + ": " + what);
}

}  // namespace dlk::codec

namespace dlk::codec {
namespace {
thread_local MessageBuffer t_last_error;
}

void set_last_error(std::string_view message, std::string_view more, std::string_view last) {
  t_last_error.store(message, more, last);
}
const char *last_error() { return t_last_error.c_str(); }

}  // namespace dlk::codec
