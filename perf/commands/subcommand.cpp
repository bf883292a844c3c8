#include "perf/commands/subcommand.hpp"

namespace dlk::perf {
namespace {

// A function-local static, so registration works whatever order the files'
// static objects are constructed in.
std::vector<Subcommand> &registry() {
  static std::vector<Subcommand> commands;
  return commands;
}

}  // namespace

const std::vector<Subcommand> &subcommands() { return registry(); }

RegisterSubcommand::RegisterSubcommand(const Subcommand &subcommand) {
  registry().push_back(subcommand);
}

}  // namespace dlk::perf
