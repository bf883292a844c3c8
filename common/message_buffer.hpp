// Storage for a library's thread-local last-error message. A plain array, not a
// std::string: a thread_local object with a destructor is destroyed before the
// process's exit handlers run, so an API call made from an atexit handler or a
// global destructor would write into freed memory. An array is never destroyed.
#pragma once

#include <cstring>
#include <string_view>

namespace dlk {

class MessageBuffer {
 public:
  // A message longer than the buffer keeps its start and its end, joined by
  // " ... ": the end is where a message lists the valid values.
  void store(std::string_view message) {
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
