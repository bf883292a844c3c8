// Counts thread starts by interposing pthread_create: libgomp, std::thread and
// every other library start their threads through it, and a definition in the
// program comes first in symbol lookup. The real one is the next definition.
#include "threads_created.hpp"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>

namespace {
std::atomic<long> created{0};
}

// Default visibility: the build hides symbols unless told, and this one must be
// seen by the libraries.
extern "C" __attribute__((visibility("default"))) int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                              void *(*start)(void *), void *arg) {
  using Create = int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
  static const Create real = reinterpret_cast<Create>(dlsym(RTLD_NEXT, "pthread_create"));
  created.fetch_add(1, std::memory_order_relaxed);
  return real(thread, attr, start, arg);
}

namespace dlk_test {
long threads_created() { return created.load(std::memory_order_relaxed); }
}  // namespace dlk_test
