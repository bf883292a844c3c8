// Turns the run-time Store mode of a decode kernel into a template argument, so
// that its hot loop carries no branch on it. Shared by the vector tiers; internal
// linkage, see numerics.hpp.
#pragma once

#include <type_traits>

#include "compression/kernels/kernel_table.hpp"

namespace dlk::codec {
namespace {

// Calls body(std::integral_constant<Store, S>()).
template <class Body>
inline void with_store(Store store, Body &&body) {
  if (store == Store::accumulate)
    body(std::integral_constant<Store, Store::accumulate>());
  else
    body(std::integral_constant<Store, Store::overwrite>());
}

}  // namespace
}  // namespace dlk::codec
