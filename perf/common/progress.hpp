// Progress of a long measurement on stderr: what is being measured, how far
// along, the time left. Only when stderr is a terminal and not --quiet, so
// logs and pipes never get carriage returns; one line, rewritten in place.
#pragma once

#include <string>

namespace dlk::perf {

class Progress {
 public:
  // Shows anything only when `enabled` and stderr is a terminal.
  explicit Progress(bool enabled);
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  // step: what runs now; fraction in [0, 1] of the whole. The time left is
  // extrapolated from the time so far.
  void update(const std::string &step, double fraction);
  // Clears the line (also done by the destructor).
  void finish();

 private:
  bool shown_;
  bool dirty_ = false;
  double start_;
};

// "0:42 left" style text for update(): empty before 2 % or after 100 %.
std::string time_left_text(double elapsed_seconds, double fraction);

}  // namespace dlk::perf
