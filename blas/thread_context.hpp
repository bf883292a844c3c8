// Each calling thread gets a dlk context of its own, created from the environment
// (DLK_BACKEND, DLK_NUM_THREADS, DLK_VERBOSE, ...) on its first call and destroyed
// when the thread exits. dlk.h lets one thread at a time use a context, so a
// context per thread lets every caller thread compute at once, with no lock.
#pragma once

#include <cstddef>
#include <vector>

#include "dlk/dlk.h"

namespace dlk::blas {

// A buffer of the context's device memory that only grows.
struct DeviceBuffer {
  void *ptr = nullptr;
  size_t bytes = 0;
};

struct ThreadContext {
  dlk_context_t context = nullptr;
  // The cpu and fpga_sim backends compute on host pointers (dlk.h); the others
  // need the matrices copied to device memory and C copied back.
  bool host_pointers = false;
  DeviceBuffer a, b, c;
  std::vector<float> packed;  // host side of a copy, packed tight
};

// The calling thread's context. A BLAS call cannot return an error, so when no
// context can be made (an unknown DLK_BACKEND, a backend that cannot run here)
// the message goes to stderr and the process aborts, rather than computing
// nothing in silence.
ThreadContext &thread_context(const char *entry);

// Prints "libdlk_blas: <entry>: <dlk_last_error()>" and aborts, when a dlk call
// fails where BLAS has no way to say so.
[[noreturn]] void fail(const char *entry);

// At least `bytes` of device memory in `buffer`; aborts when none is left.
void *reserve(ThreadContext &tc, DeviceBuffer &buffer, size_t bytes, const char *entry);

}  // namespace dlk::blas
