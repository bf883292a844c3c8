#include "blas/thread_context.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace dlk::blas {
namespace {

struct ThreadContextOwner {
  ThreadContext tc;
  ~ThreadContextOwner() {
    if (!tc.context) return;
    for (DeviceBuffer *buffer : {&tc.a, &tc.b, &tc.c}) dlk_free(tc.context, buffer->ptr);
    dlk_context_destroy(tc.context);
  }
};

thread_local ThreadContextOwner owner;

}  // namespace

void fail(const char *entry) {
  std::fprintf(stderr, "libdlk_blas: %s: %s\n", entry, dlk_last_error());
  std::abort();
}

ThreadContext &thread_context(const char *entry) {
  ThreadContext &tc = owner.tc;
  if (tc.context) return tc;
  if (dlk_context_create(&tc.context, nullptr) != DLK_STATUS_SUCCESS) fail(entry);
  dlk_context_info info;
  if (dlk_context_get_info(tc.context, &info) != DLK_STATUS_SUCCESS) fail(entry);
  tc.host_pointers =
      std::strcmp(info.backend, "cpu") == 0 || std::strcmp(info.backend, "fpga_sim") == 0;
  return tc;
}

void *reserve(ThreadContext &tc, DeviceBuffer &buffer, size_t bytes, const char *entry) {
  if (bytes <= buffer.bytes) return buffer.ptr;
  if (dlk_free(tc.context, buffer.ptr) != DLK_STATUS_SUCCESS) fail(entry);
  buffer = DeviceBuffer{};
  if (dlk_malloc(tc.context, bytes, &buffer.ptr) != DLK_STATUS_SUCCESS) fail(entry);
  buffer.bytes = bytes;
  return buffer.ptr;
}

}  // namespace dlk::blas
