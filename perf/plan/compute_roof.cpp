#include "perf/plan/compute_roof.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

namespace dlk::perf {
namespace {

[[noreturn]] void bad(const std::string &text, const std::string &why) {
  throw std::invalid_argument("--compute '" + text.substr(0, 200) + "': " + why +
                              " (the form: peak=<rate>,bandwidth=<rate>, e.g. peak=19.5TFLOP/s,bandwidth=1.5TB/s)");
}

double rate(const std::string &text, const std::string &value, const char *what,
            const std::vector<std::pair<std::string, double>> &units) {
  size_t digits = 0;
  while (digits < value.size() && (std::isdigit(static_cast<unsigned char>(value[digits])) || value[digits] == '.'))
    ++digits;
  const std::string number = value.substr(0, digits), unit = value.substr(digits);
  if (number.empty() || number.size() > 32) bad(text, std::string(what) + " has no number");
  char *end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size()) bad(text, std::string(what) + " '" + number + "' is not a number");
  for (const auto &[name, factor] : units)
    if (unit == name) {
      const double r = v * factor;
      if (!(r > 0) || !std::isfinite(r) || r > 1e21) bad(text, std::string(what) + " must be positive and finite");
      return r;
    }
  bad(text, std::string(what) + " has no known unit ('" + unit.substr(0, 32) + "')");
}

}  // namespace

ComputeRoof parse_compute_roof(const std::string &text) {
  ComputeRoof r;
  std::istringstream fields(text);
  std::string field;
  bool peak = false, bandwidth = false;
  while (std::getline(fields, field, ',')) {
    const size_t eq = field.find('=');
    const std::string key = field.substr(0, eq), value = eq == std::string::npos ? "" : field.substr(eq + 1);
    if (key == "peak" && !peak) {
      r.peak = rate(text, value, "peak", {{"FLOP/s", 1}, {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12}});
      peak = true;
    } else if (key == "bandwidth" && !bandwidth) {
      r.bandwidth = rate(text, value, "bandwidth", {{"B/s", 1}, {"GB/s", 1e9}, {"TB/s", 1e12}});
      bandwidth = true;
    } else {
      bad(text, "'" + field.substr(0, 64) + "' is not peak=<rate> or bandwidth=<rate>, or is given twice");
    }
  }
  if (!peak || !bandwidth) bad(text, "needs both peak and bandwidth");
  return r;
}

}  // namespace dlk::perf
