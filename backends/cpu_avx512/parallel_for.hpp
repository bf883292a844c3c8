// The one way the CPU backend spreads independent work over OpenMP threads.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <exception>

#include "core/backend.hpp"

namespace dlk::cpu {

// The team parallel_for uses for `count` items (callers size per-thread scratch
// with it): one, the caller's thread, inside the caller's own OpenMP parallel
// region (its threads are already busy: a nested team would oversubscribe the
// cores, which oneDNN and OpenBLAS avoid too) and in a fork() child (OpenMP cannot
// start a team there).
inline int team_size(int64_t count, int threads) {
  if (omp_in_parallel() || core::in_forked_child()) return 1;
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(std::max(threads, 1), count)));
}

// Runs body(i, thread) for i in [0, count) on team_size(count, threads) threads;
// `thread` (0 .. team - 1) indexes per-thread scratch. With one thread the loop
// runs on the caller's thread, so callers may nest it inside their own
// parallel_for. An exception thrown by a body would terminate the program inside
// an OpenMP region, so the first one is kept and rethrown on the calling thread
// afterwards.
template <class Body>
void parallel_for(int64_t count, int threads, Body &&body) {
  const int team = team_size(count, threads);
  if (team <= 1) {
    for (int64_t i = 0; i < count; ++i) body(i, 0);
    return;
  }
  std::exception_ptr error;
#pragma omp parallel for num_threads(team) schedule(static)
  for (int64_t i = 0; i < count; ++i) {
    try {
      body(i, omp_get_thread_num());
    } catch (...) {
#pragma omp critical(dlk_cpu_parallel_for_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

// Runs body(begin, end) once per thread of team_size(count, threads) on
// contiguous shares of [0, count): for work that sets something up once per
// call to a kernel that then loops over its share (a permutation table, say).
template <class Body>
void parallel_for_shares(int64_t count, int threads, Body &&body) {
  const int team = team_size(count, threads);
  parallel_for(team, team,
               [&](int64_t i, int) { body(count * i / team, count * (i + 1) / team); });
}

}  // namespace dlk::cpu
