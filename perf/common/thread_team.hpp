// Runs a body on n threads released together, and times it from the release to
// the last thread's end: thread start-up is not part of the time.
#pragma once

#include <functional>

namespace dlk::perf {

// body(thread_index) runs once on each of `threads` new threads (threads >= 1).
// Returns the wall seconds between the release and the end of the slowest one.
double run_on_threads(int threads, const std::function<void(int)> &body);

}  // namespace dlk::perf
