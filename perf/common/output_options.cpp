#include "perf/common/output_options.hpp"

#include <CLI/CLI.hpp>

namespace dlk::perf {

void OutputOptions::add_to(CLI::App &command, const std::string &schema, const std::string &chart) {
  command.add_flag("--json", json, "print JSON (schema " + schema + ") instead of text");
  command.add_option("--svg", svg, "also write " + chart + " as an SVG file")->type_name("FILE");
  command.add_flag("--quiet", quiet, "no progress on stderr (shown only on a terminal anyway)");
}

}  // namespace dlk::perf
