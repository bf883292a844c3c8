// The C ABI boundary of libdlk_compress: every public entry point runs its body
// through api_guard, which turns any exception into a dlk_codec_status and the
// thread's last-error message.
#pragma once

#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "compression/error.hpp"

namespace dlk::codec {

template <class Body>
dlk_codec_status api_guard(const char *call, Body &&body) noexcept {
  try {
    body();
    set_last_error("");
    return DLK_CODEC_SUCCESS;
  } catch (const Error &e) {
    set_last_error(e.what());
    return e.status();
  } catch (const std::bad_alloc &) {
    set_last_error(call, ": out of host memory");
    return DLK_CODEC_OUT_OF_MEMORY;
  } catch (const std::exception &e) {
    set_last_error(call, ": internal error: ", e.what());
    return DLK_CODEC_INTERNAL_ERROR;
  } catch (...) {
    set_last_error(call, ": internal error: unknown exception");
    return DLK_CODEC_INTERNAL_ERROR;
  }
}

}  // namespace dlk::codec
