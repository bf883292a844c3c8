#include "perf/common/progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <unistd.h>

#include <fmt/format.h>

#include "perf/common/timing.hpp"

namespace dlk::perf {

std::string time_left_text(double elapsed_seconds, double fraction) {
  if (!(fraction >= 0.02) || fraction >= 1) return "";
  const long left = std::lround(elapsed_seconds * (1 - fraction) / fraction);
  return fmt::format("{}:{:02} left", left / 60, left % 60);
}

Progress::Progress(bool enabled) : shown_(enabled && isatty(STDERR_FILENO)), start_(now_seconds()) {}

Progress::~Progress() { finish(); }

void Progress::update(const std::string &step, double fraction) {
  if (!shown_) return;
  fraction = std::clamp(fraction, 0.0, 1.0);
  const std::string left = time_left_text(now_seconds() - start_, fraction);
  // \r and erase-line: the terminal keeps one line, whatever the previous length.
  fmt::print(stderr, "\r\033[K[{:3.0f} %] {}{}{}", 100 * fraction, step, left.empty() ? "" : ", ",
             left);
  std::fflush(stderr);
  dirty_ = true;
}

void Progress::finish() {
  if (!dirty_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  dirty_ = false;
}

}  // namespace dlk::perf
