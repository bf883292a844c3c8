// Writing into the caller's copy of a growable public struct (dlk.h): the caller
// was compiled with `size` bytes of it, which may be more or fewer than this
// library's sizeof. The library writes its fields up to that size and 0 into the
// fields of a later dlk.h it does not know; never a byte past `size`.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace dlk::core {

template <class T>
void write_sized(T *out, size_t size, const T &value) {
  std::memcpy(out, &value, std::min(size, sizeof(T)));
  if (size > sizeof(T)) std::memset(reinterpret_cast<char *>(out) + sizeof(T), 0, size - sizeof(T));
}

}  // namespace dlk::core
