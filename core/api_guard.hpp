// The C ABI boundary: every public entry point runs its body through api_guard,
// which turns any exception into a dlk_status and the thread's last-error message.
#pragma once

#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace dlk::core {

// Joins the parts without allocating when they fit (see common/message_buffer.hpp).
void set_last_error(std::string_view message, std::string_view more = {},
                    std::string_view last = {});

template <class Body>
dlk_status api_guard(const char *call, Body &&body) noexcept {
  try {
    body();
    set_last_error("");
    return DLK_STATUS_SUCCESS;
  } catch (const Error &e) {
    set_last_error(e.what());
    return e.status();
  } catch (const std::bad_alloc &) {
    set_last_error(call, ": out of host memory");
    return DLK_STATUS_OUT_OF_MEMORY;
  } catch (const std::exception &e) {
    set_last_error(call, ": internal error: ", e.what());
    return DLK_STATUS_INTERNAL_ERROR;
  } catch (...) {
    set_last_error(call, ": internal error: unknown exception");
    return DLK_STATUS_INTERNAL_ERROR;
  }
}

}  // namespace dlk::core
