// Captures what the process writes on stderr (file descriptor 2, where
// DLK_VERBOSE prints) during one scope, through a temporary file.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace dlk_test {

class StderrCapture {
 public:
  StderrCapture() : file_(std::tmpfile()) {
    std::fflush(stderr);
    saved_ = dup(2);
    if (file_ && saved_ >= 0) dup2(fileno(file_), 2);
  }
  ~StderrCapture() {
    restore();
    if (file_) std::fclose(file_);
  }
  StderrCapture(const StderrCapture &) = delete;
  StderrCapture &operator=(const StderrCapture &) = delete;

  // Ends the capture and gives what was written, split in lines.
  std::vector<std::string> lines() {
    restore();
    std::vector<std::string> out;
    if (!file_) return out;
    std::string text;
    std::rewind(file_);
    char chunk[4096];
    size_t got;
    while ((got = std::fread(chunk, 1, sizeof chunk, file_)) > 0) text.append(chunk, got);
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) out.push_back(line);
    return out;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
  }
  std::FILE *file_;
  int saved_ = -1;
};

// The lines that start with `prefix`.
inline std::vector<std::string> lines_starting(const std::vector<std::string> &lines,
                                               const std::string &prefix) {
  std::vector<std::string> out;
  for (const auto &line : lines)
    if (line.compare(0, prefix.size(), prefix) == 0) out.push_back(line);
  return out;
}

}  // namespace dlk_test
