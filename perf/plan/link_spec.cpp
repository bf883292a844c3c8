#include "perf/plan/link_spec.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace dlk::perf {
namespace {

[[noreturn]] void bad(std::string_view text, const std::string &why) {
  throw std::invalid_argument("--link '" + std::string(text) + "': " + why +
                              "; give a preset (1gbit, 10gbit, 25gbit, 100gbit, <rate>mbit) or "
                              "bandwidth=<rate>,latency=<time> (e.g. bandwidth=12.5GB/s,latency=5us)");
}

// A positive finite number followed by a unit from `units` (name, factor); the
// number must be followed by one of them, exactly.
template <size_t N>
double quantity(std::string_view text, std::string_view value, const std::pair<const char *, double> (&units)[N],
                const char *what) {
  size_t digits = 0;
  while (digits < value.size() && (std::isdigit(static_cast<unsigned char>(value[digits])) || value[digits] == '.' ||
                                   value[digits] == 'e' || value[digits] == 'E' ||
                                   ((value[digits] == '-' || value[digits] == '+') && digits > 0 &&
                                    (value[digits - 1] == 'e' || value[digits - 1] == 'E'))))
    ++digits;
  // 'e' may start a unit only when no digit follows it; units here never start with e.
  const std::string number(value.substr(0, digits));
  const std::string_view unit = value.substr(digits);
  if (number.empty() || number.size() > 32) bad(text, std::string(what) + " has no number");
  char *end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(v) || v <= 0)
    bad(text, std::string(what) + " '" + number + "' is not a positive number");
  for (const auto &[name, factor] : units)
    if (unit == name) {
      const double r = v * factor;
      if (!std::isfinite(r) || r <= 0) bad(text, std::string(what) + " is out of range");
      return r;
    }
  bad(text, std::string(what) + " has no known unit ('" + std::string(unit) + "')");
}

constexpr std::pair<const char *, double> kRates[] = {
    {"B/s", 1},           {"KB/s", 1e3},          {"MB/s", 1e6},          {"GB/s", 1e9},
    {"bit/s", 1.0 / 8},   {"Kbit/s", 1e3 / 8},    {"Mbit/s", 1e6 / 8},    {"Gbit/s", 1e9 / 8},
    {"gbit", 1e9 / 8},    {"mbit", 1e6 / 8},      {"kbit", 1e3 / 8}};
constexpr std::pair<const char *, double> kTimes[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
constexpr std::pair<const char *, double> kPresets[] = {{"gbit", 1e9 / 8}, {"mbit", 1e6 / 8}};

}  // namespace

LinkSpec parse_link(std::string_view text) {
  if (text.empty()) bad(text, "is empty");
  if (text.size() > 200) bad(text.substr(0, 40), "is longer than 200 characters");
  LinkSpec link;
  link.name = std::string(text);
  if (text.find('=') == std::string_view::npos) {
    link.bandwidth = quantity(text, text, kPresets, "the preset");
    link.latency = kPresetLatency;
  } else {
    bool has_bandwidth = false, has_latency = false;
    std::string_view rest = text;
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      const std::string_view field = rest.substr(0, comma);
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      if (comma != std::string_view::npos && rest.empty()) bad(text, "ends with a comma");
      const size_t eq = field.find('=');
      if (eq == std::string_view::npos) bad(text, "'" + std::string(field) + "' is not key=value");
      const std::string_view key = field.substr(0, eq), value = field.substr(eq + 1);
      if (key == "bandwidth" && !has_bandwidth) {
        link.bandwidth = quantity(text, value, kRates, "bandwidth");
        has_bandwidth = true;
      } else if (key == "latency" && !has_latency) {
        link.latency = quantity(text, value, kTimes, "latency");
        has_latency = true;
      } else {
        bad(text, "'" + std::string(key) + "' is not bandwidth or latency, or is given twice");
      }
    }
    if (!has_bandwidth) bad(text, "has no bandwidth");
    if (!has_latency) link.latency = kPresetLatency;
  }
  if (link.bandwidth > 1e15 || link.bandwidth < 1) bad(text, "bandwidth must be in [1 B/s, 1 PB/s]");
  if (link.latency > 10) bad(text, "latency must be at most 10 s");
  return link;
}

std::string bandwidth_text(double bytes_per_second) {
  const double bits = 8 * bytes_per_second;
  char buffer[64];
  if (bits >= 1e9)
    std::snprintf(buffer, sizeof buffer, "%.3g Gbit/s", bits * 1e-9);
  else if (bits >= 1e6)
    std::snprintf(buffer, sizeof buffer, "%.3g Mbit/s", bits * 1e-6);
  else
    std::snprintf(buffer, sizeof buffer, "%.3g kbit/s", bits * 1e-3);
  return buffer;
}

}  // namespace dlk::perf
