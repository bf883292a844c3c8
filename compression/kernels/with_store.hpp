// Turns the run-time Store mode of a decode kernel into a template argument, so
// that its hot loop carries no branch on it. Shared by the vector tiers; internal
// linkage, see numerics.hpp.
#pragma once

#include <xmmintrin.h>

#include <type_traits>

#include "compression/kernels/kernel_table.hpp"

namespace dlk::codec {
namespace {

// Calls body(std::integral_constant<Store, S>()). After non-temporal stores, a
// fence orders them before whatever the caller does next with the output.
template <class Body>
inline void with_store(Store store, Body &&body) {
  switch (store) {
    case Store::accumulate: return body(std::integral_constant<Store, Store::accumulate>());
    case Store::overwrite: return body(std::integral_constant<Store, Store::overwrite>());
    case Store::overwrite_streaming:
      body(std::integral_constant<Store, Store::overwrite_streaming>());
      _mm_sfence();
      return;
  }
}

}  // namespace
}  // namespace dlk::codec
