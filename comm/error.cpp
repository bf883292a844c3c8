#include "comm/error.hpp"

#include "common/message_buffer.hpp"
#include "dlk/dlk_compress.h"

namespace dlk::comm {

void throw_invalid(const char *call, const char *argument, const std::string &rule) {
  throw Error(DLK_COMM_INVALID_ARGUMENT,
              std::string(call) + ": argument '" + argument + "' " + rule);
}

void check_mpi(const char *call, const char *function, int rc) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) length = 0;
  throw Error(DLK_COMM_MPI_ERROR, std::string(call) + ": " + function + " failed: " +
                                      (length > 0 ? std::string(text, length)
                                                  : "MPI error " + std::to_string(rc)));
}

void check_codec(const char *call, int codec_status) {
  if (codec_status == DLK_CODEC_SUCCESS) return;
  const auto status = static_cast<dlk_codec_status>(codec_status);
  throw Error(status == DLK_CODEC_OUT_OF_MEMORY ? DLK_COMM_OUT_OF_MEMORY : DLK_COMM_CODEC_ERROR,
              std::string(call) + ": " + dlk_compress_last_error());
}

namespace {
thread_local MessageBuffer t_last_error;  // exit-safe, see common/message_buffer.hpp
}

void set_last_error(const std::string &message) { t_last_error.store(message); }
const char *last_error() { return t_last_error.c_str(); }

}  // namespace dlk::comm
