// Timing several candidates (dlk and its peers) on the same point, interleaved:
// round r takes one sample of every candidate, starting with candidate r mod
// count, so a clock that drifts during the point (it moves 3.3-4.1 GHz here from
// minute to minute) or a neighbour that wakes up hits every candidate alike.
//
// A sample is a burst of back-to-back calls of one candidate, as a program calls
// a library, with its own thread pool warm. Before each burst the helper can
// pause, so that the previous candidate's idle threads stop spinning first:
// libgomp spins for milliseconds after a parallel region and OpenBLAS's workers
// by default for about 0.1 s, and either would take cores from the next burst.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "perf/common/stats.hpp"

namespace dlk::perf {

struct TimingOptions {
  int warmup_calls = 1;             // untimed calls of each candidate before the first round,
                                    // more until they took min_burst_seconds (at most 1000)
  double min_burst_seconds = 0;     // a sample's burst lasts at least this (0: one call)
  double pause_seconds = 0;         // sleep before each burst
  int min_samples = 5;              // samples of each candidate ...
  double min_seconds = 0.5;         // ... and at least this long for the whole point (pauses count),
  int max_samples = 1000;           // but never more samples than this ...
  double max_seconds = 10;          // ... nor rounds started after this long (one round always runs)
};

struct Candidate {
  std::string name;
  std::function<void()> run;  // one complete call, synchronized
};

struct Timing {
  std::string name;
  int calls_per_burst = 1;
  std::vector<double> seconds;  // per call: one per sample (burst time / calls), in run order
  Summary summary() const;
};

// Timing for dlk against a peer library with its own thread pool: bursts of at
// least 20 ms after a 20 ms pause. Measured here, libgomp's idle worker spins
// 3-7 ms after a parallel region and OpenBLAS's about 2 ms with
// OPENBLAS_THREAD_TIMEOUT=22 (140 ms with its default), so each burst starts with
// the other library's threads asleep.
TimingOptions peer_interleaved_timing(double min_seconds, double max_seconds);

// Whether another round should start after `rounds` rounds that took `elapsed` seconds.
bool needs_another_round(int rounds, double elapsed, const TimingOptions &options);

// Index of the candidate that runs at position `position` of round `round`.
size_t interleaved_index(int round, size_t position, size_t count);

// Calls per burst for a call that took call_seconds: enough to last
// min_burst_seconds, at least one.
int calls_per_burst(double call_seconds, double min_burst_seconds);

// Warms up each candidate (its fastest warm-up call sets its burst length), then
// runs rounds until needs_another_round says stop. Returns one Timing per
// candidate, in the order given.
std::vector<Timing> time_interleaved(const std::vector<Candidate> &candidates,
                                     const TimingOptions &options);

// Seconds since an arbitrary fixed point (steady clock).
double now_seconds();

}  // namespace dlk::perf
