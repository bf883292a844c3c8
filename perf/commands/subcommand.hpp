// dlk-perf's subcommands register themselves: each lives in its own file and
// defines one `const RegisterSubcommand` object; main() finds them here.
#pragma once

#include <functional>
#include <vector>

namespace CLI {
class App;
}

namespace dlk::perf {

// Runs the parsed subcommand; returns the process exit status.
using RunFn = std::function<int()>;

struct Subcommand {
  const char *name;
  const char *summary;
  // Adds the subcommand's options to `command` and returns what runs it; the
  // options it binds must live as long as the returned function (capture them).
  RunFn (*setup)(CLI::App &command);
};

// Every registered subcommand, in registration order.
const std::vector<Subcommand> &subcommands();

struct RegisterSubcommand {
  explicit RegisterSubcommand(const Subcommand &subcommand);
};

}  // namespace dlk::perf
