// Errors inside libdlk_comm are exceptions of one type, turned into a
// dlk_comm_status and a thread-local message at the C ABI (api_guard.hpp), as
// compression/error.hpp does for libdlk_compress.
#pragma once

#include <stdexcept>
#include <string>

#include "dlk/dlk_comm.h"

namespace dlk::comm {

class Error : public std::runtime_error {
 public:
  Error(dlk_comm_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  dlk_comm_status status() const { return status_; }

 private:
  dlk_comm_status status_;
};

// "<call>: argument '<argument>' <rule>"
[[noreturn]] void throw_invalid(const char *call, const char *argument, const std::string &rule);

// Throws DLK_COMM_MPI_ERROR "<call>: <function> failed: <MPI's error string>"
// unless rc is MPI_SUCCESS.
void check_mpi(const char *call, const char *function, int rc);

// Throws DLK_COMM_CODEC_ERROR with libdlk_compress's message unless status is success.
void check_codec(const char *call, int codec_status);

void set_last_error(const std::string &message);
const char *last_error();

}  // namespace dlk::comm
