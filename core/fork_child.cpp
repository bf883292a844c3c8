// Knows whether this process is a fork() child of the one that loaded libdlk.
// OpenMP's runtime (libgomp) keeps its worker threads in a pool; fork() copies
// only the calling thread, so a parallel region in the child waits forever on
// workers that do not exist there. The CPU backend asks in_forked_child() and
// then runs on the calling thread alone.
#include <pthread.h>

#include <atomic>

#include "core/backend.hpp"

namespace dlk::core {
namespace {

std::atomic<bool> forked_child{false};

void mark_child() { forked_child.store(true, std::memory_order_relaxed); }

// Registered when libdlk is loaded, before any dlk call can start a thread.
const bool registered = [] { return pthread_atfork(nullptr, nullptr, mark_child) == 0; }();

}  // namespace

bool in_forked_child() { return registered && forked_child.load(std::memory_order_relaxed); }

}  // namespace dlk::core
