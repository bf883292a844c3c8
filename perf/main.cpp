// dlk-perf: ceilings, roofline reports and peer comparisons for dlk.
// Each subcommand registers itself (perf/commands/subcommand.hpp); this file only parses
// the command line and runs the one that was named.
#include <algorithm>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "perf/commands/subcommand.hpp"

int main(int argc, char **argv) {
  using namespace dlk::perf;
  CLI::App app{"dlk-perf: ceilings, roofline and peer comparisons for dlk"};
  app.require_subcommand(1);

  std::vector<Subcommand> commands = subcommands();
  std::sort(commands.begin(), commands.end(),
            [](const Subcommand &a, const Subcommand &b) { return std::string(a.name) < b.name; });
  std::vector<std::pair<CLI::App *, RunFn>> runs;
  for (const Subcommand &command : commands) {
    CLI::App *sub = app.add_subcommand(command.name, command.summary);
    runs.emplace_back(sub, command.setup(*sub));
  }

  // CLI11 would only say that a subcommand is required.
  std::vector<std::string> names;
  for (const Subcommand &command : commands) names.push_back(command.name);
  if (argc > 1 && argv[1][0] != '-' && std::find(names.begin(), names.end(), argv[1]) == names.end()) {
    fmt::print(stderr, "dlk-perf: unknown subcommand '{}'; valid subcommands: {}\n", argv[1],
               fmt::join(names, ", "));
    return 2;
  }
  CLI11_PARSE(app, argc, argv);

  for (auto &[sub, run] : runs) {
    if (!sub->parsed()) continue;
    try {
      return run();
    } catch (const std::exception &e) {
      fmt::print(stderr, "dlk-perf {}: {}\n", sub->get_name(), e.what());
      return 1;
    }
  }
  return 1;
}
