// The C ABI boundary: every public entry point runs its body through api_guard,
// which turns any exception into a dlk_status and the thread's last-error message.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "core/error.hpp"

namespace dlk::core {

void set_last_error(const std::string &message);

template <class Body>
dlk_status api_guard(const char *call, Body &&body) noexcept {
  try {
    body();
    set_last_error(std::string());
    return DLK_STATUS_SUCCESS;
  } catch (const Error &e) {
    set_last_error(e.what());
    return e.status();
  } catch (const std::bad_alloc &) {
    set_last_error(std::string(call) + ": out of host memory");
    return DLK_STATUS_OUT_OF_MEMORY;
  } catch (const std::exception &e) {
    set_last_error(std::string(call) + ": internal error: " + e.what());
    return DLK_STATUS_INTERNAL_ERROR;
  } catch (...) {
    set_last_error(std::string(call) + ": internal error: unknown exception");
    return DLK_STATUS_INTERNAL_ERROR;
  }
}

}  // namespace dlk::core
