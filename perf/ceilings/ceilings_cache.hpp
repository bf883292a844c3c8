// The measured ceilings, kept between runs in the user's cache directory
// ($XDG_CACHE_HOME/dlk, else ~/.cache/dlk), one file per key (CPU, ISA,
// threads, dlk version): a sweep takes seconds, and a report should not spend
// them twice on the same machine. A file that does not parse, has another
// schema or another key, or holds an impossible figure is not trusted: the
// caller measures again and overwrites it.
#pragma once

#include <optional>
#include <string>

#include "dlk/dlk.h"
#include "perf/ceilings/machine_ceilings.hpp"

namespace dlk::perf {

// $XDG_CACHE_HOME/dlk when that is an absolute path, else $HOME/.cache/dlk;
// empty when neither is set.
std::string ceilings_cache_directory();

// The file for `key` in `directory`: ceilings-<16 hex digits of its hash>.json.
std::string ceilings_cache_file(const std::string &directory, const std::string &key);

struct CacheLookup {
  std::optional<MachineCeilings> ceilings;  // set when the file was there and sound
  std::string path;                          // the file looked at (empty: no cache directory)
  std::string problem;                       // why nothing was used: "none yet", "corrupt: ..."
};

CacheLookup load_cached_ceilings(const std::string &key);

// Writes atomically (a temporary file renamed over the old one); creates the
// directory. Returns the path, or throws std::runtime_error saying what failed.
std::string store_cached_ceilings(const MachineCeilings &ceilings);

}  // namespace dlk::perf

namespace dlk::perf {

struct ObtainedCeilings {
  MachineCeilings ceilings;
  bool from_cache = false;
  std::string note;  // one line: where they come from and when they were measured
};

// The cached ceilings for `threads` when sound and not `refresh`; else measures
// them now and stores them (a failure to store is said in the note, not thrown).
ObtainedCeilings cached_or_measured_ceilings(int threads, bool refresh,
                                             const MachineCeilingOptions &options,
                                             const ProgressFn &progress);

// The ceilings of a context's backend, as every roof and chart is drawn from:
// for the CPU, cached_or_measured_ceilings on the context's threads (progress
// on stderr when `show_progress`, see progress.hpp); for another backend, the
// figures it reports about itself (reported_ceilings), nothing measured.
ObtainedCeilings backend_ceilings(const dlk_context_info &info, bool refresh, bool show_progress);

}  // namespace dlk::perf
