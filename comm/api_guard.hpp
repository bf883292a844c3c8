// The C ABI boundary of libdlk_comm: every public entry point runs its body
// through api_guard, which turns any exception into a dlk_comm_status and the
// thread's last-error message.
#pragma once

#include <exception>
#include <new>
#include <string>
#include <utility>

#include "comm/error.hpp"

namespace dlk::comm {

// The status and message of one guarded body (also what a request carries
// from the background thread back to dlk_comm_wait).
struct Outcome {
  dlk_comm_status status = DLK_COMM_SUCCESS;
  std::string message;
};

template <class Body>
Outcome run_guarded(const char *call, Body &&body) noexcept {
  try {
    body();
    return {};
  } catch (const Error &e) {
    return {e.status(), e.what()};
  } catch (const std::bad_alloc &) {
    return {DLK_COMM_OUT_OF_MEMORY, std::string(call) + ": out of host memory"};
  } catch (const std::exception &e) {
    return {DLK_COMM_INTERNAL_ERROR, std::string(call) + ": internal error: " + e.what()};
  } catch (...) {
    return {DLK_COMM_INTERNAL_ERROR, std::string(call) + ": internal error: unknown exception"};
  }
}

inline dlk_comm_status report(const Outcome &outcome) noexcept {
  try {
    set_last_error(outcome.message);
  } catch (...) {
  }
  return outcome.status;
}

template <class Body>
dlk_comm_status api_guard(const char *call, Body &&body) noexcept {
  return report(run_guarded(call, std::forward<Body>(body)));
}

}  // namespace dlk::comm
