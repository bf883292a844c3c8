// C ABI: device memory of a context's backend.
#include <cstdint>
#include <string>

#include "core/api_guard.hpp"
#include "core/context.hpp"
#include "core/validate.hpp"

using namespace dlk::core;

extern "C" {

dlk_status dlk_malloc(dlk_context_t context, size_t bytes, void **ptr) {
  return api_guard("dlk_malloc", [&] {
    dlk_context &ctx = checked_context("dlk_malloc", context);
    if (!ptr) throw_invalid("dlk_malloc", "ptr", "must not be NULL");
    // No address space holds more, and a backend rounding a larger size up to its
    // alignment would wrap around to a tiny block.
    if (bytes > static_cast<size_t>(PTRDIFF_MAX))
      throw Error(DLK_STATUS_OUT_OF_MEMORY, "dlk_malloc: cannot allocate " + std::to_string(bytes) +
                                                " bytes (more than PTRDIFF_MAX)");
    *ptr = bytes ? ctx.backend->allocate(bytes) : nullptr;
  });
}

dlk_status dlk_free(dlk_context_t context, void *ptr) {
  return api_guard("dlk_free", [&] {
    dlk_context &ctx = checked_context("dlk_free", context);
    if (!ptr) return;
    if (!ctx.backend->owns(ptr))
      throw_invalid("dlk_free", "ptr", "was not allocated by dlk_malloc on this context");
    ctx.backend->deallocate(ptr);
  });
}

dlk_status dlk_memcpy(dlk_context_t context, void *dst, const void *src, size_t bytes,
                      dlk_copy_kind kind) {
  return api_guard("dlk_memcpy", [&] {
    dlk_context &ctx = checked_context("dlk_memcpy", context);
    if (!check::holds(kind, {DLK_COPY_HOST_TO_DEVICE, DLK_COPY_DEVICE_TO_HOST,
                             DLK_COPY_DEVICE_TO_DEVICE}))
      throw_invalid("dlk_memcpy", "kind", "must be a dlk_copy_kind value");
    if (bytes == 0) return;
    if (!dst) throw_invalid("dlk_memcpy", "dst", "must not be NULL");
    if (!src) throw_invalid("dlk_memcpy", "src", "must not be NULL");
    const auto d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
    if (d < s + bytes && s < d + bytes)
      throw_invalid("dlk_memcpy", "dst", "overlaps 'src'");
    ctx.backend->copy(dst, src, bytes, kind);
  });
}

dlk_status dlk_synchronize(dlk_context_t context) {
  return api_guard("dlk_synchronize", [&] { checked_context("dlk_synchronize", context).backend->synchronize(); });
}

}  // extern "C"
