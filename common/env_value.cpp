#include "common/env_value.hpp"

#include <cstdio>
#include <cstdlib>

namespace dlk::env {
namespace {

// Longer values are shown by their first kShownBytes bytes: a message stays a
// line, whatever a user (or a fuzzer) puts in the environment.
constexpr size_t kShownBytes = 64;

std::string rejected(std::string_view value, const std::string &valid) {
  return "has value " + quote(value) + "; valid values: " + valid;
}

}  // namespace

std::optional<std::string> read(const char *name) {
  const char *value = std::getenv(name);
  if (!value) return std::nullopt;
  return std::string(value);
}

std::string quote(std::string_view value) {
  const std::string_view shown = value.substr(0, kShownBytes);
  std::string s = "'";
  for (const char c : shown) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\t') {
      s += "\\t";
    } else if (c == '\n') {
      s += "\\n";
    } else if (c == '\\' || c == '\'') {
      s += '\\';
      s += c;
    } else if (byte < 0x20 || byte >= 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", byte);
      s += hex;
    } else {
      s += c;
    }
  }
  s += "'";
  if (shown.size() < value.size())
    s += "... (" + std::to_string(value.size()) + " bytes)";
  return s;
}

std::string join(const std::vector<std::string> &values) {
  std::string s;
  for (const auto &v : values) s += (s.empty() ? "" : ", ") + v;
  return s;
}

bool parse_choice(std::string_view value, const std::vector<std::string> &valid, size_t &index,
                  std::string &rule) {
  for (size_t i = 0; i < valid.size(); ++i)
    if (value == valid[i]) {
      index = i;
      return true;
    }
  rule = rejected(value, join(valid));
  return false;
}

bool parse_integer(std::string_view value, long long lo, long long hi, long long &result,
                   std::string &rule) {
  // A digit that would take v past hi stops the loop: no run of digits overflows.
  long long v = 0;
  bool ok = !value.empty();
  for (const char c : value) {
    const int digit = c - '0';
    if (c < '0' || c > '9' || v > (hi - digit) / 10) {
      ok = false;
      break;
    }
    v = v * 10 + digit;
  }
  if (!ok || v < lo || v > hi) {
    rule = rejected(value, "an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    return false;
  }
  result = v;
  return true;
}

bool parse_path(std::string_view value, std::string &rule) {
  if (!value.empty()) return true;
  rule = rejected(value, "a path (not empty)");
  return false;
}

}  // namespace dlk::env
