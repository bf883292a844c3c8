// Turns the run-time modes of a kernel call (store mode, half format, code width,
// rounding) into template arguments, so that a kernel's hot loop carries no
// branch on them. Each with_* calls body with std::integral_constant values; a
// tier's entry point is then one call of its template. Shared by every tier;
// internal linkage, see numerics.hpp.
#pragma once

#include <xmmintrin.h>

#include <type_traits>

#include "compression/kernels/kernel_table.hpp"

namespace dlk::codec {
namespace {

template <Store S>
using StoreConstant = std::integral_constant<Store, S>;
template <HalfFormat F>
using FormatConstant = std::integral_constant<HalfFormat, F>;
template <int Bits>
using BitsConstant = std::integral_constant<int, Bits>;

// After non-temporal stores, a fence orders them before whatever the caller does
// next with the output.
template <class Body>
inline void with_store(Store store, Body &&body) {
  switch (store) {
    case Store::accumulate: return body(StoreConstant<Store::accumulate>());
    case Store::overwrite: return body(StoreConstant<Store::overwrite>());
    case Store::overwrite_streaming:
      body(StoreConstant<Store::overwrite_streaming>());
      _mm_sfence();
      return;
  }
}

template <class Body>
inline void with_half_format(HalfFormat format, Body &&body) {
  if (format == HalfFormat::fp16)
    body(FormatConstant<HalfFormat::fp16>());
  else
    body(FormatConstant<HalfFormat::bf16>());
}

// bits: 8 or 4.
template <class Body>
inline void with_bits(int bits, Body &&body) {
  if (bits == 8)
    body(BitsConstant<8>());
  else
    body(BitsConstant<4>());
}

// body(bits, stochastic) for a quantize spec.
template <class Body>
inline void with_quantize_spec(const QuantizeSpec &spec, Body &&body) {
  with_bits(spec.bits, [&](auto bits) {
    if (spec.stochastic)
      body(bits, std::true_type());
    else
      body(bits, std::false_type());
  });
}

}  // namespace
}  // namespace dlk::codec
