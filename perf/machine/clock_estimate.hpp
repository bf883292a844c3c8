// The core clock while all threads are busy, from a chain of dependent integer
// adds (one per cycle on every x86 core since the Pentium Pro). Guests cannot
// read the host's clock, and /proc/cpuinfo shows the nominal one (2.6 GHz on
// this machine's Zen 4 guest, which runs at 3.3-4.1): theoretical ceilings use
// this estimate instead.
#pragma once

namespace dlk::perf {

// `runs` rounds on `threads` threads at once, each thread timing four chains
// of about 0.5 ms; the highest rate of any chain, in Hz. On a busy machine a
// preempted chain only lowers its own figure, so the best is the clock.
double estimate_clock_hz(int threads, int runs = 5);

}  // namespace dlk::perf
