#include "perf/plan/algorithm_overheads.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "perf/plan/allreduce_model.hpp"

namespace dlk::perf {
namespace {

[[noreturn]] void refuse(std::string_view part, const std::string &why) {
  throw std::invalid_argument("--algorithm-overhead " + std::string(part) + ": " + why +
                              " (expected ALGORITHM=SECONDS[,...], e.g. onebit=0.0012,ring=-0.003)");
}

}  // namespace

std::map<std::string, double> parse_algorithm_overheads(std::string_view text) {
  std::map<std::string, double> overheads;
  if (text.empty()) return overheads;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string_view part = text.substr(begin, end - begin);
    const std::size_t eq = part.find('=');
    if (eq == std::string_view::npos) refuse(part, "no '='");
    const std::string name(part.substr(0, eq));
    const std::vector<std::string> &known = plan_algorithms();
    if (name == "auto" || std::find(known.begin(), known.end(), name) == known.end())
      refuse(part, "'" + name + "' is not an algorithm with buckets of its own (auto's take what they pick)");
    const std::string number(part.substr(eq + 1));
    char *stop = nullptr;
    const double seconds = number.empty() ? NAN : std::strtod(number.c_str(), &stop);
    if (number.empty() || stop != number.c_str() + number.size() || !std::isfinite(seconds) ||
        std::fabs(seconds) >= 1000)
      refuse(part, "'" + number + "' is not a finite number of seconds in (-1000, 1000)");
    if (!overheads.emplace(name, seconds).second) refuse(part, name + " is given twice");
    begin = end + 1;
  }
  return overheads;
}

}  // namespace dlk::perf
