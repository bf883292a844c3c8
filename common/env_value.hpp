// The one parser of every environment variable of dlk's libraries (libdlk,
// libdlk_compress, libdlk_comm), so that each follows the same rule:
//   - unset means the default;
//   - a set value is taken exactly as it is: no whitespace is trimmed, and an
//     empty value is a value (an invalid one, for every variable), never "unset";
//   - an integer is decimal digits only (no sign, no spaces), within its range;
//   - a rejected value gives a message that quotes the value (escaped, and cut
//     short when long) and always ends with the valid values.
// The parse functions return false and fill `rule` with that message's tail
// ("has value '...'; valid values: ...") for the caller to raise with the call
// and the variable's name, in its own library's error type.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlk::env {

// The value of `name` in the environment, or none when it is unset.
std::optional<std::string> read(const char *name);

// `value` as a message shows it: control and non-ASCII bytes escaped (\t, \xNN),
// and a value longer than a line shown by its start and its length in bytes.
std::string quote(std::string_view value);

// "a, b, c"
std::string join(const std::vector<std::string> &values);

// Index of `value` in `valid` (exact, case-sensitive match).
bool parse_choice(std::string_view value, const std::vector<std::string> &valid, size_t &index,
                  std::string &rule);

// A decimal integer from lo to hi.
bool parse_integer(std::string_view value, long long lo, long long hi, long long &result,
                   std::string &rule);

// A path: any non-empty value.
bool parse_path(std::string_view value, std::string &rule);

}  // namespace dlk::env
