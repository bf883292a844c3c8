// Storage for a library's thread-local last-error message. A plain array, not a
// std::string: a thread_local object with a destructor is destroyed before the
// process's exit handlers run, so an API call made from an atexit handler or a
// global destructor would write into freed memory. An array is never destroyed.
#pragma once

#include <cstring>
#include <string>
#include <string_view>

namespace dlk {

class MessageBuffer {
 public:
  // A message longer than the buffer keeps its start and its end, joined by
  // " ... ": the end is where a message lists the valid values.
  // Up to three parts, joined without allocating (a message about running out of
  // memory must not need memory).
  void store(std::string_view message, std::string_view more = {}, std::string_view last = {}) {
    if (!more.empty() || !last.empty()) {
      if (message.size() + more.size() + last.size() <= sizeof(text_) - 1) {
        size_t at = 0;
        for (const std::string_view part : {message, more, last}) {
          std::memcpy(text_ + at, part.data(), part.size());
          at += part.size();
        }
        text_[at] = '\0';
        return;
      }
      std::string joined;
      try {
        joined.append(message).append(more).append(last);
      } catch (...) {
        joined.clear();
      }
      store(joined.empty() ? message : std::string_view(joined));
      return;
    }
    constexpr size_t kCapacity = sizeof(text_) - 1;
    if (message.size() <= kCapacity) {
      std::memcpy(text_, message.data(), message.size());
      text_[message.size()] = '\0';
      return;
    }
    constexpr std::string_view kCut = " ... ";
    constexpr size_t kHead = kCapacity / 2;
    constexpr size_t kTail = kCapacity - kHead - kCut.size();
    std::memcpy(text_, message.data(), kHead);
    std::memcpy(text_ + kHead, kCut.data(), kCut.size());
    std::memcpy(text_ + kHead + kCut.size(), message.data() + message.size() - kTail, kTail);
    text_[kCapacity] = '\0';
  }
  const char *c_str() const { return text_; }

 private:
  char text_[4096] = {};
};

}  // namespace dlk
