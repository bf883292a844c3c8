// The output options every subcommand takes: --json (a versioned schema, one
// document on stdout), --svg FILE (its chart), --quiet (no progress on
// stderr). Progress shows only when stderr is a terminal anyway.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace dlk::perf {

struct OutputOptions {
  bool json = false;
  std::string svg;  // empty: no chart
  bool quiet = false;

  // schema: the JSON schema name, shown in --help; chart: what --svg draws.
  void add_to(CLI::App &command, const std::string &schema, const std::string &chart);
  bool progress() const { return !quiet; }
};

}  // namespace dlk::perf
