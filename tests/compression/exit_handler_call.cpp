// A libdlk_compress call made while the process exits (from an atexit handler, as a
// framework's teardown does) must fail cleanly and leave a readable last error:
// the thread's last-error storage outlives the exit handlers. The call's failure
// is checked here; a write into freed storage is caught by ASan, or aborts.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "dlk/dlk_compress.h"

namespace {

bool failed_cleanly() {
  dlk_codec_params params;
  return dlk_compress_params_init(&params, static_cast<dlk_codec_algorithm>(99)) ==
             DLK_CODEC_INVALID_ARGUMENT &&
         std::strstr(dlk_compress_last_error(), "algorithm") != nullptr;
}

void at_exit() {
  if (!failed_cleanly()) {
    std::fputs("exit_handler_call: the call from the exit handler did not fail cleanly\n", stderr);
    std::_Exit(1);
  }
}

}  // namespace

int main() {
  std::atexit(at_exit);
  // The thread's last error is written before exit too, so that its storage
  // exists (and would be destroyed, were it an object with a destructor).
  return failed_cleanly() ? 0 : 1;
}
