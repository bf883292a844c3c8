#pragma once
// The int a C caller stored in an enum field. C lets a caller store any int
// there, and loading a value outside the enum's range as the C++ type is
// undefined behaviour (UBSan stops on it), so a field is validated from its
// bytes before anything reads it as the enum.
#include <cstring>

namespace dlk::enum_field {

template <class Enum>
int stored_int(const Enum &field) {
  static_assert(sizeof(Enum) == sizeof(int), "the enums of dlk's C headers are int-sized");
  int stored;
  std::memcpy(&stored, &field, sizeof stored);
  return stored;
}

}  // namespace dlk::enum_field
