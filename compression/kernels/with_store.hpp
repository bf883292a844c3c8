// Turns the run-time Store mode of a decode kernel into a template argument, so
// that its hot loop carries no branch on it. Shared by the vector tiers; internal
// linkage, see numerics.hpp.
#pragma once

#include <xmmintrin.h>

#include <type_traits>

#include "compression/kernels/kernel_table.hpp"

namespace dlk::codec {
namespace {

// Calls body(std::integral_constant<Store, S>()); fences after streaming stores
// so that they are visible before the kernel returns.
template <class Body>
inline void with_store(Store store, Body &&body) {
  switch (store) {
    case Store::stream:
      body(std::integral_constant<Store, Store::stream>());
      _mm_sfence();
      break;
    case Store::accumulate:
      body(std::integral_constant<Store, Store::accumulate>());
      break;
    default:
      body(std::integral_constant<Store, Store::overwrite>());
  }
}

}  // namespace
}  // namespace dlk::codec
